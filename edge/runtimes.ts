// Every runtime the project deploys to, one line each. The wiring (edge/instance.ts), the
// launchers (dev/launchers/index.ts), the KV baseline, the bench and the layout test read this
// list; a runtime missing from one of their `Record<RuntimeName, …>` fails to type-check.

export const RUNTIMES = {
  node: { label: "Node", entry: "edge/node/index.ts", kvStore: "edge/kv/memory.ts" },
  cloudflare: { label: "Cloudflare Workers", entry: "edge/cloudflare/index.ts", kvStore: "edge/kv/workers-kv.ts" },
  deno: { label: "Deno", entry: "edge/deno/index.ts", kvStore: "edge/kv/deno-kv.ts" },
  fastly: { label: "Fastly Compute", entry: "edge/fastly/index.ts", kvStore: "edge/kv/fastly-kv.ts" },
} as const satisfies Record<string, { label: string; entry: string; kvStore: string }>;

export type RuntimeName = keyof typeof RUNTIMES;

export const RUNTIME_NAMES = Object.keys(RUNTIMES) as RuntimeName[];

export function isRuntimeName(value: string): value is RuntimeName {
  return Object.hasOwn(RUNTIMES, value);
}
