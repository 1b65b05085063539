// A V8 CPU profile (the inspector's Profiler domain, as `node --cpu-prof` writes it) read as CPU
// time per request in each part of a server: every sample goes to the app's part nearest its leaf
// (a builtin such as JSON.stringify or a write to a file counts for the code that called it; a
// middleware counts only for its own work, not for what runs beneath it), and only when no part
// of the app is on its stack to the nearest of Hono, its Node adapter or the runtime.

/** Where a sample's function is: V8 gives a line and column (0-based) in the script at `url`. */
export interface CallFrame {
  functionName: string;
  url: string;
  lineNumber?: number;
  columnNumber?: number;
}

export interface CpuProfile {
  nodes: { id: number; parent?: number; children?: number[]; callFrame: CallFrame }[];
  samples: number[];
  timeDeltas: number[];
}

/** The source file a frame's function was written in: for a bundle, what its source map says. */
export type SourceOf = (frame: CallFrame) => string;

const asRun: SourceOf = (frame) => frame.url;

/** The app's parts, then (GENERIC) the code every request runs through whatever the app does. */
export const PARTS = [
  ["log line", /core\/log\.ts|core\/http\/request-id\.ts/],
  ["rate limiting", /core\/http\/rate-limit\.ts|edge\/rate-limit\//],
  ["token check", /core\/tokens\/|\/jose\//],
  ["Server-Timing", /core\/http\/server-timing\.ts|hono\/dist\/.*timing/],
  ["link lookup", /core\/links\//],
  // Recording spans, on the request's path; then serializing and sending them, off it.
  ["tracing: spans", /core\/telemetry\/|@opentelemetry\/(api|core|resources|sdk-trace)\//],
  ["tracing: export", /edge\/telemetry\/|@opentelemetry\/otlp-/],
  ["KV adapter", /edge\/kv\/|kv-baseline\/handler\.ts/],
  ["other app middleware", /core\/(app|http|mount|lib)/],
  ["Hono", /node_modules\/hono\//],
  ["Node adapter (@hono/node-server)", /@hono\/node-server/],
  ["runtime's HTTP and streams", /^node:|^ext:|^internal\//],
] as const;

const GENERIC = new Set<string>(["Hono", "Node adapter (@hono/node-server)", "runtime's HTTP and streams"]);

export type PartName = (typeof PARTS)[number][0] | "GC" | "runtime, native" | "other JS";

function partOfFrame(url: string, functionName: string): PartName | undefined {
  if (functionName === "(garbage collector)") return "GC";
  if (functionName === "(program)") return "runtime, native";
  for (const [name, pattern] of PARTS) if (pattern.test(url)) return name;
  return undefined;
}

/** The functions that spent the most CPU themselves, µs per request: what a part is made of. */
export function topFunctions(profile: CpuProfile, requests: number, count: number, sourceOf = asRun): string[] {
  const self = new Map<string, number>();
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)!.callFrame;
    const { functionName } = frame;
    const url = sourceOf(frame);
    if (functionName === "(idle)") return;
    const name = `${functionName || "(anonymous)"} ${url.replace(/^.*node_modules\//, "").replace(/^file:\/\/.*?\/(core|edge|dev)\//, "$1/")}`;
    self.set(name, (self.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  return [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, us]) => `${(us / requests).toFixed(1).padStart(7)} µs  ${name}`);
}

/** CPU µs per request in each part (idle left out), and their sum. */
export function cpuPerRequest(
  profile: CpuProfile,
  requests: number,
  sourceOf = asRun,
): { parts: Map<PartName, number>; total: number } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const partOfNode = new Map<number, PartName | "idle">();
  const resolve = (id: number): PartName | "idle" => {
    const known = partOfNode.get(id);
    if (known) return known;
    let part: PartName | "idle" | undefined;
    let generic: PartName | "idle" | undefined;
    for (let at: number | undefined = id; at !== undefined && !part; at = parentOf.get(at)) {
      const frame = byId.get(at)!.callFrame;
      const found = frame.functionName === "(idle)" ? "idle" : partOfFrame(sourceOf(frame), frame.functionName);
      if (found && GENERIC.has(found)) generic ??= found;
      else part = found;
    }
    part ??= generic;
    partOfNode.set(id, part ?? "other JS");
    return part ?? "other JS";
  };
  const parts = new Map<PartName, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const part = resolve(id);
    // A sample's delta is the time since the one before: the time it stands for.
    const us = profile.timeDeltas[i] ?? 0;
    if (part === "idle") return;
    parts.set(part, (parts.get(part) ?? 0) + us);
    total += us;
  });
  for (const [part, us] of parts) parts.set(part, us / requests);
  return { parts, total: total / requests };
}

export type PartsCost = ReturnType<typeof cpuPerRequest>;

const COLUMNS = ["bare KV get", "KV hit", "KV hit, traced"];
const EXCESS = ["KV hit − bare get", "traced − KV hit"];

/** The Markdown head of the parts table: two columns, three with the KV hit traced. */
export function partsTableHead(traced: boolean): string[] {
  const count = traced ? 3 : 2;
  const names = [...COLUMNS.slice(0, count), ...EXCESS.slice(0, count - 1)];
  return [`| runtime | part | ${names.join(" | ")} |`, `| --- | --- |${" ---: |".repeat(names.length)}`];
}

/**
 * One row per part, the dearest in the KV hit first, then the sums: each column's µs per
 * request, then each column's excess over the one before it.
 */
export function partsTableRows(runtime: string, columns: PartsCost[]): string[] {
  const hit = columns[1]!;
  const parts = [...new Set<PartName>(columns.flatMap((cost) => [...cost.parts.keys()]))];
  parts.sort((a, b) => (hit.parts.get(b) ?? 0) - (hit.parts.get(a) ?? 0));
  const row = (part: string, values: number[]) => {
    const excess = values.slice(1).map((value, i) => value - values[i]!);
    return `| ${runtime} | ${part} | ${[...values, ...excess].map((us) => us.toFixed(1)).join(" | ")} |`;
  };
  return [
    ...parts.map((part) =>
      row(
        part,
        columns.map((cost) => cost.parts.get(part) ?? 0),
      ),
    ),
    row(
      "**all**",
      columns.map((cost) => cost.total),
    ),
  ];
}
