import { describeWithViceroy } from "../../dev/support/viceroy.ts";
import { tracesOfTour } from "./traces.ts";

describeWithViceroy("the Fastly service on Viceroy", () => tracesOfTour("fastly"));
