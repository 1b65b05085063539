// Cost per million operations, per target: what the run counted per request (requests, database
// statements, KV calls, bytes out) times the price table's prices for the platform the target is
// billed as, and the database's. What the run does not count (CPU time) is named, not guessed.
import { fixed, markdownTable, textTable } from "../lib/format.ts";
import { operations } from "./operations.ts";
import type { Meter, Price } from "./price-file.ts";
import type { Summary, TargetStatus } from "./summary.ts";

const DATABASE = "Neon";
const NOT_MEASURED: Partial<Record<Meter, string>> = {
  cpuMs: "CPU time (no runtime here reports it per request)",
};

export interface TargetCost {
  target: string;
  /** What the target runs on (Viceroy is not Fastly's edge)… */
  platform: string;
  /** …and whose prices it is figured at. */
  pricedAs: string;
  usdPerMillion: number | null;
  /** Price item → USD per million operations. */
  parts: Record<string, number>;
  /** What one request of the run's mix used, as counted (absent in runs saved before it was kept). */
  perRequest?: Meters;
}

export interface CostReport {
  table: string;
  prices: Array<{ item: string; usd: number; per: string; date: string; source: string }>;
  assumptions: string[];
  perTarget: TargetCost[];
}

export type Meters = Partial<Record<Meter, number>>;

/** What one request of the target's mix of operations used, where the run counted it. */
export function metersOf(summaries: readonly Summary[]): Meters {
  const app = summaries.filter((s) => operations[s.operation].target !== "baseline" && s.requests > 0);
  const total = app.reduce((sum, s) => sum + s.requests, 0);
  const mean = (per: (s: Summary) => number | undefined): number | undefined => {
    const values = app.map((s) => [per(s), s.requests] as const);
    if (total === 0 || values.some(([value]) => value === undefined || Number.isNaN(value))) return undefined;
    return values.reduce((sum, [value, n]) => sum + value! * n, 0) / total;
  };
  const kv = (kind: "get" | "put" | "delete" | "list") => (s: Summary) =>
    typeof s.kvPerRequest === "object" && s.kvPerRequest !== null ? s.kvPerRequest[kind] : undefined;
  return {
    requests: total > 0 ? 1 : undefined,
    sqlStatements: mean((s) => s.roundTripsPerRequest),
    kvGet: mean(kv("get")),
    kvPut: mean(kv("put")),
    kvDelete: mean(kv("delete")),
    kvList: mean(kv("list")),
    bytesOut: mean((s) => s.bytesOutPerRequest ?? undefined),
  };
}

/** USD per million requests of `meters` at `prices`; null when a price needed is unconfirmed or none apply. */
export function costPerMillion(meters: Meters, prices: readonly Price[]): Pick<TargetCost, "usdPerMillion" | "parts"> {
  const parts: Record<string, number> = {};
  let unknown = prices.length === 0;
  for (const price of prices) {
    const used = meters[price.meter];
    if (used === undefined || used === 0) continue;
    if (price.usd === null) unknown = true;
    else parts[price.item] = (used / price.units) * price.usd * 1_000_000;
  }
  const sum = Object.values(parts).reduce((total, usd) => total + usd, 0);
  return { usdPerMillion: unknown ? null : sum, parts };
}

function assumptions(prices: readonly Price[], statuses: readonly TargetStatus[]): string[] {
  const unconfirmed = prices.filter((p) => p.usd === null).map((p) => p.item);
  const unbilled = statuses.filter((s) => !(s.billedAs ?? s.platform)?.match(/^(Cloudflare|Fastly|Deno Deploy)$/));
  return [
    "List prices beyond each plan's included usage: free tiers, included quotas and monthly plan fees are not counted.",
    "Per request: the run's mix of operations (the bare KV get left out), weighted by their requests.",
    "Database statements are those the bench's own endpoint served; KV calls and bytes out (the answer as the app writes it, before the platform's headers and any compression) those its in-process probe counted (runs on deployments count neither).",
    `Not counted: ${Object.values(NOT_MEASURED).join("; ")}; storage.`,
    ...(unconfirmed.length
      ? [`Unconfirmed, shown as n/a: ${unconfirmed.join(", ")} (fill them into the price file)`]
      : []),
    ...unbilled.map(
      (s) => `${s.target}: no per-request price (${s.platform ?? "unknown platform"}); the database's only`,
    ),
  ];
}

export function costReport(
  summaries: readonly Summary[],
  statuses: readonly TargetStatus[],
  prices: readonly Price[],
  file: string,
): CostReport {
  const perTarget = statuses
    .filter((s) => s.available)
    .map((status): TargetCost => {
      const billedAs = status.billedAs ?? status.platform ?? "unknown";
      const applying = prices.filter((p) => p.platform === billedAs || p.platform === DATABASE);
      const meters = metersOf(summaries.filter((s) => s.target === status.target));
      const platform = status.platform ?? "unknown";
      return {
        target: status.target,
        platform,
        pricedAs: billedAs,
        ...costPerMillion(meters, applying),
        perRequest: meters,
      };
    });
  return {
    table: file,
    prices: prices.flatMap(({ item, usd, per, date, source }) =>
      usd === null ? [] : [{ item, usd, per, date, source }],
    ),
    assumptions: assumptions(prices, statuses),
    perTarget,
  };
}

export const COST_HEADER = ["target", "priced as", "per request", "USD per million operations", "of which"];

const METER_NAMES: Partial<Record<Meter, string>> = {
  sqlStatements: "statements",
  kvGet: "KV get",
  kvPut: "KV put",
  kvDelete: "KV delete",
  kvList: "KV list",
  bytesOut: "bytes out",
};

/** "0.50 statements, 1 KV get, 0.25 KV put, 412 bytes out": the counts the prices multiply. */
function describeMeters(meters: Meters | undefined): string {
  if (!meters) return "n/a";
  const counted = Object.entries(METER_NAMES).flatMap(([meter, name]) => {
    const used = meters[meter as Meter];
    if (used === undefined || used === 0) return [];
    const figure = meter === "bytesOut" || Number.isInteger(used) ? fixed(used, 0) : fixed(used, 2);
    return [`${figure} ${name}`];
  });
  return counted.length > 0 ? counted.join(", ") : "none counted";
}

/** One row per target, the same in the terminal, bench.md and bench.html. */
export function costRows(report: Pick<CostReport, "perTarget">): string[][] {
  return report.perTarget.map((t) => [
    t.target,
    t.pricedAs,
    describeMeters(t.perRequest),
    fixed(t.usdPerMillion, 2),
    Object.entries(t.parts)
      .map(([item, usd]) => `${item} ${fixed(usd, 2)}`)
      .join(", "),
  ]);
}

const priceLines = (report: CostReport) =>
  report.prices.map((p) => `${p.item}: $${p.usd} per ${p.per} (read ${p.date}, ${p.source})`);

export function costText(report: CostReport): string {
  return `\nCost per million operations (prices: ${report.table})\n${textTable(COST_HEADER, costRows(report))}\n${[
    ...priceLines(report),
    ...report.assumptions,
  ].join("\n")}\n`;
}

export function costMarkdown(report: CostReport): string {
  return [
    `Cost per million operations (prices: \`${report.table}\`):`,
    "",
    markdownTable(COST_HEADER, costRows(report)),
    "",
    ...[...priceLines(report), ...report.assumptions].map((line) => `- ${line}`),
    "",
  ].join("\n");
}
