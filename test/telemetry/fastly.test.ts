import { tourWithoutCollector, tracesOfTour } from "./traces.ts";

tracesOfTour("fastly");
tourWithoutCollector("fastly");
