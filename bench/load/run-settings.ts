// What one `npm run bench` run is asked to do: its rounds, its extra phases and where it writes.
import type { Price } from "./price-file.ts";
import type { RoundSettings } from "./rounds.ts";

export interface RunSettings extends RoundSettings {
  staleness: number;
  cold: number;
  idleSeconds: number;
  maxRequests: number;
  out: string;
  /** The price table the cost per million operations is figured from, and its file. */
  prices: { file: string; table: Price[] };
}
