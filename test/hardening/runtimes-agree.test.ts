// Differential: the same hostile request (arbitraries.ts), sent over HTTP to every runtime's own
// server (Node, workerd, Deno, the Fastly wasm on Viceroy) over one database, gets the same status,
// problem code and contract headers from each. The properties suite calls the app in-process; this
// one sees what each runtime's HTTP layer hands the app: workerd, for one, decodes header bytes as
// UTF-8 and drops an empty If-Match. Each runtime works in tenants of its own, so all start from
// the same state and the same requests leave them in the same state.
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PROBLEM_CONTENT_TYPE } from "../../core/http/problem.ts";
import { launchRuntime, type RunningRuntime, runtimeNames } from "../../dev/launchers/index.ts";
import { type LocalStack, startLocalStack } from "../../dev/local-stack/stack.ts";
import { bearer, TEST_AUTH_SECRET, type TokenClaims } from "../../dev/support/tokens.ts";
import { describeWithViceroy } from "../../dev/support/viceroy.ts";
import { routes } from "../support/routes.ts";
import { elsewhere, filledIn, type HostileRequest, hostileRequestsFor, LISTED_ORIGIN } from "./arbitraries.ts";
import { SEEDED_ASSET } from "./hostile-values.ts";

const RUNS = Number(process.env.PROPERTY_RUNS ?? 200);
// Quotas out of reach: each platform counts in its own way (Viceroy's limiter admits everything).
const UNLIMITED = Object.fromEntries(
  ["CALLER_READS", "CALLER_WRITES", "TENANT_READS", "TENANT_WRITES", "REFUSED_TOKENS"].map((name) => [
    `RATE_LIMIT_${name}`,
    "100000000",
  ]),
);
// A request line and header section over 8 KiB meet each server's own limit first, where each
// answers in its own way (Node 431 past 16 KiB, Viceroy 500): a platform bound, not the app's
// answer. A Content-Length of the generator's is not sent: the body's own is.
const MAX_HEAD_BYTES = 8 * 1024;

interface Answer {
  status: number;
  code?: string;
  headers: Record<string, string>;
  /** A JSON body's fields. */
  fields?: string;
}

// The headers the contract gives an answer, compared by value; the rest of those it names, whose
// values name a version, a count or a request, by presence. What a platform adds on its own (Date,
// a compressed body's Content-Encoding and Vary) is its own.
const COMPARED_BY_VALUE = [
  "content-type",
  "allow",
  "accept-patch",
  "accept-encoding",
  "www-authenticate",
  "ratelimit-policy",
  "idempotent-replayed",
  "access-control-allow-origin",
  "access-control-allow-methods",
  "access-control-allow-headers",
  "access-control-expose-headers",
  "access-control-max-age",
];
const COMPARED_BY_PRESENCE = ["etag", "location", "retry-after", "ratelimit", "x-link-source", "x-request-id"];

describeWithViceroy("every runtime answers a hostile request alike", () => {
  let stack: LocalStack;
  const running: RunningRuntime[] = [];

  beforeAll(async () => {
    stack = await startLocalStack();
    const env = { AUTH_SECRET: TEST_AUTH_SECRET, CORS_ORIGINS: LISTED_ORIGIN, ...stack.settings, ...UNLIMITED };
    for (const runtime of runtimeNames) running.push(await launchRuntime(runtime, env, { port: 0 }));
  }, 300_000);
  afterAll(async () => {
    for (const server of running) await server.close();
    await stack?.close();
  });

  it("the same status, problem code and headers from every runtime, for any request to any route", async () => {
    const anyRequest = fc.oneof(...routes.map((route) => hostileRequestsFor(route)), elsewhere);
    await fc.assert(
      fc.asyncProperty(anyRequest, async (hostile) => {
        if (!sendable(hostile)) return;
        const answers: Record<string, Answer> = {};
        for (const server of running) answers[server.runtime] = await sendAs(server, hostile);
        const node = answers.node!;
        const request = `${hostile.method} ${hostile.path.slice(0, 200)} ${JSON.stringify(hostile.headers).slice(0, 400)}`;
        expect(answers, request).toEqual(Object.fromEntries(running.map(({ runtime }) => [runtime, node])));
      }),
      { numRuns: RUNS },
    );
  }, 600_000);
});

/**
 * What reaches the app on every runtime: no CONNECT (a tunnel), a target that is a path (each
 * server refuses any other before the app: workerd with 500, Deno and Viceroy with a bare 400), and
 * a request line and header section within the bound.
 */
function sendable({ method, path, headers, padding }: HostileRequest): boolean {
  const around = padding[0].length + padding[1].length;
  const bytes = Object.entries(headers).reduce(
    (sum, [name, value]) => sum + name.length + value.length + around + 4,
    0,
  );
  return method !== "CONNECT" && path.startsWith("/") && path.length + bytes <= MAX_HEAD_BYTES;
}

/** The request as `server`'s runtime gets it: its own tenants, its own seeded asset's ETag. */
async function sendAs(server: RunningRuntime, hostile: HostileRequest): Promise<Answer> {
  const own = (claims: TokenClaims): TokenClaims => ({ ...claims, tid: `${claims.tid}-${server.runtime}` });
  const opaque = await seededOpaque(server, own({ sub: "alice", tid: "acme" }));
  const { headers: filled, body } = await filledIn(hostile, opaque, own);
  const { "content-length": _, ...headers } = filled;
  const { status, headers: answered, text } = await send(server.url, hostile.method, hostile.path, headers, body);
  const compared = contractHeaders(answered);
  const type = compared["content-type"] ?? "";
  if (hostile.method === "HEAD" || !/^application\/(problem\+)?json/.test(type)) return { status, headers: compared };
  const json = JSON.parse(text) as Record<string, unknown>;
  const fields = Object.keys(json).sort().join();
  if (!type.startsWith(PROBLEM_CONTENT_TYPE)) return { status, headers: compared, fields };
  return { status, code: json.code as string, headers: compared, fields };
}

function contractHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const compared: Record<string, string> = {};
  for (const name of COMPARED_BY_VALUE) if (headers[name] !== undefined) compared[name] = String(headers[name]);
  for (const name of COMPARED_BY_PRESENCE) if (headers[name] !== undefined) compared[name] = "(present)";
  return compared;
}

/** The seeded asset of the tenant exists (a request may have deleted it); its opaque-tag. */
async function seededOpaque(server: RunningRuntime, owner: TokenClaims): Promise<string> {
  const { authorization } = await bearer(owner);
  const path = `/v1/assets/${SEEDED_ASSET}`;
  let found = await send(server.url, "GET", path, { authorization });
  if (found.status === 404) {
    const body = JSON.stringify({ name: "Seed", material: "oak" });
    const headers = { authorization, "if-none-match": "*", "content-type": "application/json" };
    found = await send(server.url, "PUT", path, headers, body);
  }
  const { etag } = found.headers;
  if (etag === undefined) throw new Error(`${server.runtime}: no seeded asset (${found.status} ${found.text})`);
  return etag.slice(1, -1);
}

interface Sent {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** One request by node:http: any method but CONNECT, header values as their bytes (Latin-1). */
function send(base: string, method: string, path: string, headers: Record<string, string>, body?: string) {
  return new Promise<Sent>((resolve, reject) => {
    const url = new URL(base);
    const payload = body === undefined ? undefined : Buffer.from(body);
    const sent = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        // A connection per request: one the server has just closed is never reused.
        agent: false,
        method,
        path,
        headers: { ...headers, ...(payload && { "content-length": payload.byteLength }) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode!,
            headers: response.headers,
            text: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    sent.on("error", reject);
    sent.end(payload);
  });
}
