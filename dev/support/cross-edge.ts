// Two deployments over one database, as a user sees them: a change made through edge A, and how
// long edge B keeps answering from its KV what the change undid. Used by the cross-edge test and
// by `npm run bench` (staleness after an unlink).
import { signToken, type TokenClaims } from "./tokens.ts";

export interface Edge {
  name: string;
  url: string;
}

export interface ProbeOptions {
  /** HS256 tokens with this secret, unless `token` signs them. */
  authSecret?: string;
  token?: (claims: { sub: string; tid: string }) => Promise<string>;
  /** The tenant to work in (default: a fresh one per probe). */
  tenant?: string;
  /** How requests are sent (default: the global fetch). */
  fetch?: typeof fetch;
  /** Time between lookups through B. */
  pollMs?: number;
  /** Give up (and throw) after this long. */
  timeoutMs?: number;
}

interface Lookup {
  status: number;
  source: string | null;
  body: { userId?: string; displayName?: string | null };
}

const LINK_SOURCE = "x-link-source";

function client(edge: Edge, options: ProbeOptions) {
  return async (method: string, path: string, as: TokenClaims, body?: unknown): Promise<Lookup> => {
    const token = options.token
      ? await options.token({ sub: as.sub ?? "alice", tid: as.tid ?? "acme" })
      : await signToken(as, options.authSecret);
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, connection: "close" };
    if (body !== undefined) headers["content-type"] = "application/json";
    const response = await (options.fetch ?? fetch)(new URL(path, edge.url), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, source: response.headers.get(LINK_SOURCE), body: text ? JSON.parse(text) : {} };
  };
}

/** Polls `lookup` until `done` holds; answers the milliseconds since `since`. */
async function until(
  lookup: () => Promise<Lookup>,
  done: (answer: Lookup) => boolean,
  since: number,
  options: ProbeOptions,
  what: string,
) {
  const deadline = since + (options.timeoutMs ?? 30_000);
  for (;;) {
    const answer = await lookup();
    if (done(answer)) return performance.now() - since;
    if (performance.now() > deadline)
      throw new Error(`${what}: still ${answer.status} ${answer.source} ${JSON.stringify(answer.body)}`);
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 50));
  }
}

const fresh = (prefix: string) => `${prefix}${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;

/** Links through A, waits until B answers it from KV, then runs `change` through A. */
async function cachedOnB(a: Edge, b: Edge, options: ProbeOptions, displayName: string) {
  const user = { sub: fresh("u"), tid: options.tenant ?? fresh("t") };
  const path = `/v1/links/github/${fresh("x")}`;
  const [viaA, viaB] = [client(a, options), client(b, options)];
  const linked = await viaA("PUT", path, user, { displayName });
  if (linked.status !== 201) throw new Error(`link through ${a.name}: ${linked.status}`);
  const lookup = () => viaB("GET", path, user);
  await until(
    lookup,
    (answer) => answer.source === "kv" && answer.body.displayName === displayName,
    performance.now(),
    options,
    `${b.name} caching the link`,
  );
  return { user, path, viaA, lookup };
}

/** Milliseconds from an unlink through A until B no longer answers the old owner. */
export async function unlinkStaleness(a: Edge, b: Edge, options: ProbeOptions): Promise<number> {
  const { user, path, viaA, lookup } = await cachedOnB(a, b, options, "owner");
  const start = performance.now();
  const unlinked = await viaA("DELETE", path, user);
  if (unlinked.status !== 204) throw new Error(`unlink through ${a.name}: ${unlinked.status}`);
  return until(lookup, (answer) => answer.status === 404, start, options, `${b.name} after the unlink`);
}

/** Milliseconds from a display-name change through A until B no longer answers the old name. */
export async function renameStaleness(a: Edge, b: Edge, options: ProbeOptions): Promise<number> {
  const { user, path, viaA, lookup } = await cachedOnB(a, b, options, "old name");
  const start = performance.now();
  const renamed = await viaA("PUT", path, user, { displayName: "new name" });
  if (renamed.status !== 200) throw new Error(`rename through ${a.name}: ${renamed.status}`);
  return until(
    lookup,
    (answer) => answer.status === 200 && answer.body.displayName === "new name",
    start,
    options,
    `${b.name} after the rename`,
  );
}
