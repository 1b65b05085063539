import { tourWithoutCollector, tracesOfTour } from "./traces.ts";

tracesOfTour("node");
tourWithoutCollector("node");
