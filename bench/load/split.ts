// Where each operation's time went, from the Server-Timing of its answers: network (the client's
// time minus the app's total: the way there and back, the server's HTTP layer and the wait behind
// other requests in flight) and edge time (the total), and the edge time in its parts: token
// verification, database, KV store, rate limiting, and the rest (the app's own code). Means add up
// exactly to the client's mean; p50s of parts would not.

import type { TimedAnswer } from "../../dev/support/server-timing.ts";
import { percentile } from "../../dev/support/stats.ts";
import { fixed, markdownTable, textTable } from "../lib/format.ts";

export interface Split {
  /** Answers that carried Server-Timing. */
  timed: number;
  /** Per request, in ms: client = network + edge, edge = auth + db + kv + limit + app. */
  meanMs: {
    client: number;
    network: number;
    edge: number;
    auth: number;
    db: number;
    kv: number;
    /** Absent in runs saved before the rate limiter was timed. */
    limit?: number;
    app: number;
  };
  p50Ms: { client: number; network: number; edge: number };
}

const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/** null when no answer carried Server-Timing (SERVER_TIMING off, or stripped on the way). */
export function splitOf(timings: readonly TimedAnswer[]): Split | null {
  if (timings.length === 0) return null;
  const network = timings.map((t) => t.client - t.total);
  const edge = timings.map((t) => t.total);
  const client = timings.map((t) => t.client);
  const [auth, db, kv, limit] = [
    mean(timings.map((t) => t.auth)),
    mean(timings.map((t) => t.db)),
    mean(timings.map((t) => t.kv)),
    mean(timings.map((t) => t.limit)),
  ];
  return {
    timed: timings.length,
    meanMs: {
      client: mean(client),
      network: mean(network),
      edge: mean(edge),
      auth,
      db,
      kv,
      limit,
      app: mean(edge) - auth - db - kv - limit,
    },
    p50Ms: { client: percentile(client, 50), network: percentile(network, 50), edge: percentile(edge, 50) },
  };
}

interface SplitRow {
  target: string;
  label: string;
  requests: number;
  split: Split | null;
}

const HEADER = [
  "target",
  "operation",
  "client",
  "network",
  "edge",
  "auth",
  "db",
  "kv",
  "limit",
  "app",
  "edge p50",
  "timed",
];

function rows(summaries: readonly SplitRow[]): string[][] {
  return summaries.map(({ target, label, requests, split }) => {
    if (!split) return [target, label, ...HEADER.slice(2, -1).map(() => ""), `0/${requests} (no Server-Timing)`];
    const m = split.meanMs;
    const ms = [m.client, m.network, m.edge, m.auth, m.db, m.kv, m.limit, m.app, split.p50Ms.edge].map((v) =>
      fixed(v, 2),
    );
    return [target, label, ...ms, `${split.timed}/${requests}`];
  });
}

const TITLE =
  "Where the time went: mean ms per request; client = network + edge, edge = auth + db + kv + limit + app (Server-Timing)";

export const splitText = (summaries: readonly SplitRow[]) => `\n${TITLE}\n${textTable(HEADER, rows(summaries))}`;
export const splitMarkdown = (summaries: readonly SplitRow[]) =>
  `### ${TITLE}\n\n${markdownTable(HEADER, rows(summaries))}\n`;
