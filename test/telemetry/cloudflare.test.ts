import { tracesOfTour } from "./traces.ts";

tracesOfTour("cloudflare");
