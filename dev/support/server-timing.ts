// Reading the Server-Timing header the app sends with SERVER_TIMING=on (core/http/server-timing.ts):
// its total, the parts of it and the runtime that answered.

/** One answer's time, in ms: as the client saw it, and as the app measured its parts. */
export interface TimedAnswer {
  client: number;
  total: number;
  db: number;
  kv: number;
  auth: number;
  limit: number;
}

/** name → duration (ms) or, for an entry without one, its description (`runtime;desc="deno"`). */
export function parseServerTiming(header: string): Map<string, number | string> {
  const metrics = new Map<string, number | string>();
  for (const entry of header.split(",")) {
    const [name, ...params] = entry.split(";").map((part) => part.trim());
    if (!name) continue;
    const param = (key: string) => params.find((p) => p.startsWith(`${key}=`))?.slice(key.length + 1);
    const dur = param("dur");
    const desc = param("desc");
    metrics.set(name, dur !== undefined ? Number(dur) : desc?.startsWith('"') ? JSON.parse(desc) : (desc ?? ""));
  }
  return metrics;
}

/** The answer's split, or undefined when it carries no usable Server-Timing (setting off, proxy stripped it). */
export function timedAnswer(header: string | null, clientMs: number): TimedAnswer | undefined {
  if (header === null) return undefined;
  const metrics = parseServerTiming(header);
  const ms = (name: string) => {
    const value = metrics.get(name);
    return typeof value === "number" && Number.isFinite(value) ? value : undefined;
  };
  const [total, db, kv, auth] = [ms("total"), ms("db"), ms("kv"), ms("auth")];
  if (total === undefined || db === undefined || kv === undefined || auth === undefined) return undefined;
  // A deployment of a release before rate limiting sends no `limit`: nothing was spent on it.
  return { client: clientMs, total, db, kv, auth, limit: ms("limit") ?? 0 };
}
