import { tourWithoutCollector, tracesOfTour } from "./traces.ts";

tracesOfTour("cloudflare");
tourWithoutCollector("cloudflare");
