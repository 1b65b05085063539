import { tracesOfTour } from "./traces.ts";

tracesOfTour("deno");
