import { tourWithoutCollector, tracesOfTour } from "./traces.ts";

tracesOfTour("deno");
tourWithoutCollector("deno");
