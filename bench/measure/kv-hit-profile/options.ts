// `npm run measure:kv-hit-profile`'s options: --help and a wrong option answered as every bench
// command answers them, whole numbers within their bounds (bench/lib/cli.ts).
import { parseCommandLine } from "../../../dev/support/command-line.ts";
import { bounds, selection, wholeNumber } from "../../lib/cli.ts";

/** Profiled under the inspector; Viceroy has none, its part is told by builds and answers (viceroy.ts). */
export const PROFILED_RUNTIMES = ["node", "cloudflare", "deno"] as const;
export const RUNTIMES = [...PROFILED_RUNTIMES, "fastly"] as const;

const NUMBERS = {
  requests: { min: 1, default: 5_000 },
  warmup: { min: 0, default: 1_000 },
  concurrency: { min: 1, default: 4 },
  top: { min: 0, default: 0 },
  viceroyRequests: { min: 1, default: 500 },
};

export const USAGE = `npm run measure:kv-hit-profile -- [options]
  --runtimes LIST         ${RUNTIMES.join(",")} (default: all)
  --requests N            measured KV hits and bare gets per profile ${bounds(NUMBERS.requests)}
  --warmup N              unmeasured ones before each profile ${bounds(NUMBERS.warmup)}
  --concurrency N         requests in flight while profiling ${bounds(NUMBERS.concurrency)}
  --top N                 also print each profile's N dearest functions, to stderr ${bounds(NUMBERS.top)}
  --save DIR              write each profile as DIR/NAME.cpuprofile (Chrome DevTools opens them)
  --viceroy-requests N    sent one at a time to each Viceroy server ${bounds(NUMBERS.viceroyRequests)}
  --otel                  also profile the KV hit with tracing on (node, cloudflare, deno), exporting
                          to the OpenTelemetry Collector (bash .ci/tools builds it)
Where a KV hit's time goes beyond a bare KV get's, as Markdown tables: CPU profiles on node,
cloudflare (workerd) and deno; Fastly's wasm on Viceroy told by builds and answers.`;

export interface ProfileOptions {
  runtimes: (typeof RUNTIMES)[number][];
  requests: number;
  warmup: number;
  concurrency: number;
  /** Also prints (to stderr) the functions that spent the most, per profile. */
  top: number;
  /** Where each profile is written as NAME.cpuprofile. */
  save?: string;
  viceroyRequests: number;
  /** Also profiles the KV hit with tracing on (node, cloudflare, deno). */
  otel: boolean;
}

export function profileOptions(argv?: string[]): ProfileOptions {
  const values = parseCommandLine(
    USAGE,
    {
      runtimes: { type: "string" },
      requests: { type: "string" },
      warmup: { type: "string" },
      concurrency: { type: "string" },
      top: { type: "string" },
      save: { type: "string" },
      "viceroy-requests": { type: "string" },
      otel: { type: "boolean" },
    },
    argv,
  );
  return {
    runtimes: selection("runtimes", values.runtimes, RUNTIMES),
    requests: wholeNumber("requests", values.requests, NUMBERS.requests),
    warmup: wholeNumber("warmup", values.warmup, NUMBERS.warmup),
    concurrency: wholeNumber("concurrency", values.concurrency, NUMBERS.concurrency),
    top: wholeNumber("top", values.top, NUMBERS.top),
    save: values.save,
    viceroyRequests: wholeNumber("viceroy-requests", values["viceroy-requests"], NUMBERS.viceroyRequests),
    otel: values.otel === true,
  };
}
