// What each target is, in words a reader of the results can quote: the runtimes the bench starts
// run locally, beside it, and the Fastly one is js-compute's wasm on Viceroy, Fastly's local
// runtime, not Fastly's edge; a deployment is named from its answers' headers.
import type { RuntimeName } from "../../dev/launchers/index.ts";

export interface LocalTarget {
  /** The target's name in the tables, the charts and bench.json. */
  target: string;
  platform: string;
  /** Whose prices its cost is figured at (bench/prices.json); a plain server has none per request. */
  billedAs?: string;
}

const LOCAL_TARGETS: Record<RuntimeName, LocalTarget> = {
  node: { target: "node", platform: "Node.js, local" },
  cloudflare: { target: "cloudflare", platform: "workerd (Miniflare), local", billedAs: "Cloudflare" },
  deno: { target: "deno", platform: "Deno, local", billedAs: "Deno Deploy" },
  fastly: {
    target: "fastly-viceroy",
    platform: "js-compute wasm on Viceroy, Fastly's local runtime — not Fastly's edge",
    billedAs: "Fastly",
  },
};

export function localTarget(runtime: RuntimeName): LocalTarget {
  return LOCAL_TARGETS[runtime];
}

/** What a traced target's name adds to its runtime's (`--otel`: node beside node+otel). */
export const TRACED_SUFFIX = "+otel";

/** The same runtime with tracing on, exporting to a local OpenTelemetry Collector. */
export function tracedTarget(runtime: RuntimeName): LocalTarget {
  const plain = LOCAL_TARGETS[runtime];
  return {
    ...plain,
    target: `${plain.target}${TRACED_SUFFIX}`,
    platform: `${plain.platform}, tracing on (OTLP to a local OpenTelemetry Collector)`,
  };
}

export const UNKNOWN_PLATFORM = "unknown";

/** Header tests in order: the first that holds names the platform. */
const HEADER_RULES: readonly { platform: string; holds(headers: Headers): boolean }[] = [
  { platform: "Cloudflare", holds: (h) => h.has("cf-ray") || h.get("server")?.toLowerCase() === "cloudflare" },
  {
    platform: "Fastly",
    holds: (h) =>
      [...h.keys()].some((name) => name.startsWith("fastly-")) ||
      /^cache-[a-z0-9-]+$/i.test(h.get("x-served-by")?.split(",")[0]?.trim() ?? "") ||
      h.has("x-fastly-request-id"),
  },
  { platform: "Deno Deploy", holds: (h) => /^deno\/?/i.test(h.get("server") ?? "") },
];

/** The platform a deployment's answer names in its headers, or "unknown". */
export function platformFromHeaders(headers: Headers): string {
  return HEADER_RULES.find((rule) => rule.holds(headers))?.platform ?? UNKNOWN_PLATFORM;
}

/** "Targets: node = Node.js, local; …": what each name in the tables stands for. */
export function platformsNote(statuses: readonly { target: string; platform?: string }[]): string {
  return `Targets: ${statuses.map((s) => `${s.target} = ${s.platform ?? UNKNOWN_PLATFORM}`).join("; ")}`;
}
