// A bench.json as a run with every optional field writes it (intervals, percentiles with their
// samples, load models, ratios, cost, platforms), for the tests of what renders it.
import type { BenchJson, ResultRow } from "./bench-json.ts";

const TARGETS = ["node", "cloudflare", "deno", "fastly-viceroy"];
const OPERATIONS = [
  ["link-hit", "link lookup (KV hit)"],
  ["kv-baseline", "bare KV get (baseline)"],
  ["document-create", "document create"],
] as const;

function result(target: string, t: number, [operation, label]: (typeof OPERATIONS)[number], o: number): ResultRow {
  const p50 = (1 + t) * (1 + o) * 1.7;
  const split = {
    client: p50,
    network: p50 * 0.3,
    edge: p50 * 0.7,
    auth: p50 * 0.1,
    db: p50 * 0.3,
    kv: p50 * 0.1,
    app: p50 * 0.2,
  };
  return {
    target,
    operation,
    label,
    requests: 600,
    errors: t === 3 && o === 2 ? 2 : 0,
    perSecond: { median: 1000 / p50 },
    latencyMs: { p50, p95: p50 * 2.5, p99: p50 * 4 },
    p50Range: { min: p50 * 0.9, max: p50 * 1.2 },
    p50Interval: { low: p50 * 0.95, high: p50 * 1.1 },
    percentiles: [
      { p: 50, ms: p50, samples: 600 },
      { p: 99, ms: p50 * 4, samples: 600 },
      { p: 99.9, ms: null, samples: 600 },
    ],
    load: o === 2 ? { model: "open", ratePerSecond: 200 } : { model: "closed", concurrency: 4 },
    split: o === 1 ? null : { timed: 600, meanMs: split, p50Ms: { client: p50, network: p50 * 0.3, edge: p50 * 0.7 } },
  };
}

type Measurement = [target: string, operation: string];

function ratio(
  label: string,
  [numTarget, numOperation]: Measurement,
  [denTarget, denOperation]: Measurement,
  [median, low, high]: [number, number, number],
): NonNullable<BenchJson["ratios"]>[number] {
  return {
    label,
    numerator: { target: numTarget, operation: numOperation },
    denominator: { target: denTarget, operation: denOperation },
    median,
    low,
    high,
  };
}

export const fullBenchJson: BenchJson = {
  command: "npm run bench -- --rate 200",
  finishedAt: "2026-12-05T03:00:00.000Z",
  machine: { cpus: 2, cpuModel: "AMD EPYC", node: "20.20.2" },
  database: "PostgreSQL 15 (DATABASE_URL)",
  targets: [
    ...TARGETS.map((target) => ({ target, available: true, platform: `${target}, local` })),
    { target: "bun", available: false, reason: "no launcher" },
  ],
  results: TARGETS.flatMap((target, t) => OPERATIONS.map((operation, o) => result(target, t, operation, o))),
  ratios: [
    ratio("KV hit over bare KV get", ["node", "link-hit"], ["node", "kv-baseline"], [1.31, 1.12, 1.52]),
    ratio("KV hit, fastly-viceroy over deno", ["fastly-viceroy", "link-hit"], ["deno", "link-hit"], [1.05, 0.91, 1.2]),
  ],
  cost: {
    table: "bench/prices.json",
    prices: [
      {
        item: "Workers request",
        usd: 0.3,
        per: "million requests",
        date: "2026-11-01",
        source: "https://developers.cloudflare.com/workers/platform/pricing/",
      },
    ],
    assumptions: ["One operation is one request."],
    perTarget: [
      {
        target: "cloudflare",
        platform: "Cloudflare Workers",
        pricedAs: "Cloudflare",
        usdPerMillion: 0.42,
        parts: { requests: 0.3, kv: 0.12 },
        perRequest: { requests: 1, kvGet: 1, bytesOut: 412 },
      },
      {
        target: "fastly-viceroy",
        platform: "js-compute wasm on Viceroy, Fastly's local runtime — not Fastly's edge",
        pricedAs: "Fastly",
        usdPerMillion: null,
        parts: {},
        perRequest: { requests: 1, kvGet: 1, bytesOut: 412 },
      },
    ],
  },
  staleness: [
    { from: "node", to: "deno", samples: [1200, 1500, 900] },
    { from: "deno", to: "node", samples: [1100] },
    { from: "node", to: "cloudflare", samples: [], error: "timed out" },
  ],
  coldStarts: [{ target: "node", idleSeconds: 30, samples: [12, 14], timings: [], errors: [] }],
};
