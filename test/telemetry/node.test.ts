import { tracesOfTour } from "./traces.ts";

tracesOfTour("node");
