// The price table the cost per million operations is computed from (bench/prices.json by
// default): read and checked, every fault one line naming the file and the field.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { InputFileError } from "../lib/cli.ts";

export const DEFAULT_PRICE_FILE = fileURLToPath(new URL("../prices.json", import.meta.url));

/** What a request uses, as the run counts it. */
export const METERS = [
  "requests",
  "cpuMs",
  "kvGet",
  "kvPut",
  "kvDelete",
  "kvList",
  "sqlStatements",
  "bytesOut",
] as const;
export type Meter = (typeof METERS)[number];

export interface Price {
  item: string;
  /** Who bills it: a platform a target is billed as, or "Neon" for the database every target uses. */
  platform: string;
  meter: Meter;
  /** The price of `units` of the meter; null where it could not be confirmed. */
  usd: number | null;
  units: number;
  per: string;
  date: string;
  source: string;
  note?: string;
}

type Check = (value: unknown) => boolean;
const text: Check = (value) => typeof value === "string" && value.length > 0;
const FIELDS: Record<keyof Price, [Check, string]> = {
  item: [text, "a non-empty string"],
  platform: [text, "a non-empty string"],
  meter: [(value) => METERS.includes(value as Meter), `one of ${METERS.join(", ")}`],
  usd: [(value) => value === null || (typeof value === "number" && value >= 0), "a price ≥ 0 in USD, or null"],
  units: [(value) => typeof value === "number" && value > 0, "a number > 0"],
  per: [text, "a non-empty string"],
  date: [(value) => typeof value === "string" && /^\d{4}-\d{2}-\d{2}$/.test(value), "a date YYYY-MM-DD"],
  source: [(value) => typeof value === "string" && /^https?:\/\//.test(value), "an http(s) URL"],
  note: [(value) => value === undefined || typeof value === "string", "a string, when given"],
};

/** The prices in `json`, or an InputFileError naming `file` and the first field at fault. */
export function parsePrices(json: string, file: string): Price[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    throw new InputFileError(`${file}: not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const prices = (parsed as { prices?: unknown } | null)?.prices;
  if (!Array.isArray(prices)) throw new InputFileError(`${file}: prices must be an array`);
  prices.forEach((price: Record<string, unknown>, i) => {
    for (const [field, [holds, what]] of Object.entries(FIELDS))
      if (!holds(price?.[field])) throw new InputFileError(`${file}: prices[${i}].${field} must be ${what}`);
  });
  return prices as Price[];
}

export async function loadPrices(file = DEFAULT_PRICE_FILE): Promise<Price[]> {
  const json = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    throw new InputFileError(`${file}: cannot be read (${error.code ?? error.message})`);
  });
  return parsePrices(json, file);
}
