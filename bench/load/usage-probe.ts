// What a request uses that no runtime reports from outside: KV operations and the bytes of its
// answer. Each runtime's KV lives inside it (memory in node, Workers KV in workerd, Deno KV in the
// deno process) and none of them can be counted without changing the runtime. Both are core's
// doing, which every runtime runs unchanged, so they are counted once, here: the same planned
// requests, sent in-process to createApp with a counting KV over the same database.
import { createApp } from "../../core/app.ts";
import { silentLogger } from "../../core/log.ts";
import { aroundEachKvCall } from "../../core/ports/around-each-call.ts";
import type { KvCache, KvMethod } from "../../core/ports/kv.ts";
import type { Sql } from "../../core/ports/sql.ts";
import { parseSettings } from "../../core/settings/settings.ts";
import { createMemoryKv } from "../../edge/kv/memory.ts";
import { secretTokens } from "../lib/tokens.ts";
import { type OperationContext, type OperationName, operations } from "./operations.ts";
import { fetchTransport, send } from "./request.ts";

/** The calls a request makes (bulk reads only serve the sync of the change feed). */
export type KvCounts = Record<Exclude<KvMethod, "getMany">, number>;

/** Per request of an operation: its KV calls, and its answer's bytes as the app writes them. */
export interface Usage {
  kv: KvCounts;
  bytesOut: number;
}

const PROBE_REQUESTS = 4;

function countingKv(inner: KvCache): { kv: KvCache; counts: KvCounts } {
  const counts: KvCounts = { get: 0, put: 0, delete: 0, list: 0 };
  // Without its bulk read: requests never use it, so every method counted has a column.
  const single: KvCache = { ...inner, getMany: undefined };
  const kv = aroundEachKvCall(single, (call, method) => (counts[method as keyof KvCounts]++, call()));
  return { kv, counts };
}

/**
 * An answer's size on the wire as HTTP/1.1 would carry it from the app: status line, headers and
 * body, before the platform's own headers (Date, Connection…) and any compression.
 */
export function answerBytes(response: Response, bodyBytes: number): number {
  let bytes = `HTTP/1.1 ${response.status} ${response.statusText}\r\n\r\n`.length + bodyBytes;
  for (const [name, value] of response.headers) bytes += name.length + value.length + 4;
  return bytes;
}

/** Usage per request of each operation, or an error message when the probe failed. */
export async function probeUsage(
  sql: Sql,
  names: readonly OperationName[],
  seed: OperationContext["seed"],
  secret: string,
): Promise<Partial<Record<OperationName, Usage | string>>> {
  const { kv, counts } = countingKv(createMemoryKv());
  const app = createApp({
    sql,
    kv,
    settings: parseSettings({ AUTH_SECRET: secret }),
    runtime: "node",
    logger: silentLogger,
  });
  let bytesOut = 0;
  const fetcher = async (request: Request) => {
    const answer = await app.fetch(request);
    const body = new Uint8Array(await answer.arrayBuffer());
    bytesOut += answerBytes(answer, body.byteLength);
    return new Response(body.byteLength > 0 ? body : null, answer);
  };
  const base = "http://probe.local";
  const transport = fetchTransport(fetcher, base);
  const result: Partial<Record<OperationName, Usage | string>> = {};
  for (const name of names) {
    const operation = operations[name];
    if (operation.target === "baseline") continue; // not the app
    const context: OperationContext = {
      owner: "probe",
      tag: `probe-${name}`,
      count: PROBE_REQUESTS,
      concurrency: 1,
      tenant: "bench",
      tokens: secretTokens(secret),
      seed,
      call: (planned) => fetcher(new Request(new URL(planned.path, base), { ...planned })),
      etags: new Map(),
      made: { links: [] },
    };
    try {
      await operation.setup?.(context);
      const requests = await operation.plan(context);
      const before = { ...counts };
      const bytesBefore = bytesOut;
      const failures: string[] = [];
      for (const planned of requests) {
        const { failure } = await send(transport, planned, operation.expect, context.etags);
        if (failure) failures.push(failure);
      }
      // Counts of requests that went wrong would describe an error path, not the operation.
      result[name] =
        failures.length > 0
          ? `probe failed: ${failures[0]}`
          : { kv: perRequest(counts, before, requests.length), bytesOut: (bytesOut - bytesBefore) / requests.length };
    } catch (error) {
      result[name] = `probe failed: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  return result;
}

function perRequest(after: KvCounts, before: KvCounts, requests: number): KvCounts {
  const delta = (kind: keyof KvCounts) => (after[kind] - before[kind]) / requests;
  return { get: delta("get"), put: delta("put"), delete: delta("delete"), list: delta("list") };
}

/** "1 get + 1 put", "none". */
export function describeKvCounts(counts: KvCounts | string | undefined): string {
  if (counts === undefined) return "n/a";
  if (typeof counts === "string") return "n/a";
  const parts = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${Number.isInteger(n) ? n : n.toFixed(2)} ${kind}`);
  return parts.length > 0 ? parts.join(" + ") : "0";
}
