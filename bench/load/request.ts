// One planned request and how it is sent and checked: shared by the load worker (over HTTP,
// bench/load/http-client.ts) and the in-process usage probe (straight into app.fetch), so both
// send exactly the same requests.

export interface PlannedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Send the path's last known ETag as If-Match, and remember the new one (a PATCH chain). */
  chain?: boolean;
}

export interface Expectation {
  status: number;
  /** For link lookups: where the answer must come from. */
  linkSource?: "kv" | "db";
}

/** Why a request did not get the expected answer, or undefined when it did. */
export type Failure = string | undefined;

/** What the bench reads of an answer, its body read to the end. */
export interface Answer {
  status: number;
  /** The value of a header (its name in lower case), or null. */
  header(name: string): string | null;
}

/** A request as it goes out: the planned one, If-Match filled in for a chain. */
export type Outgoing = Omit<PlannedRequest, "chain">;

/** Sends one request to a target and waits for the end of its answer; a network failure rejects. */
export type Transport = (request: Outgoing) => Promise<Answer>;

export interface Sent {
  /** performance.now() when the answer had ended (or the request failed), before any checking. */
  answeredAt: number;
  failure: Failure;
  /** The answer's Server-Timing header, when it had one. */
  serverTiming: string | null;
}

/** Sends one request, reads the whole answer, checks it; updates `etags` for chains. */
export async function send(
  transport: Transport,
  planned: PlannedRequest,
  expect: Expectation,
  etags: Map<string, string>,
): Promise<Sent> {
  const { chain, ...request } = planned;
  if (chain) request.headers = { ...request.headers, "if-match": etags.get(planned.path) ?? "*" };
  let answer: Answer;
  try {
    answer = await transport(request);
  } catch (error) {
    return { answeredAt: performance.now(), failure: `network: ${causeOf(error)}`, serverTiming: null };
  }
  const answeredAt = performance.now();
  const etag = answer.header("etag");
  if (chain && etag) etags.set(planned.path, etag);
  return { answeredAt, failure: check(answer, expect), serverTiming: answer.header("server-timing") };
}

function check(answer: Answer, expect: Expectation): Failure {
  if (answer.status !== expect.status) return `HTTP ${answer.status}`;
  const source = answer.header("x-link-source");
  if (expect.linkSource && source !== expect.linkSource) return `X-Link-Source: ${source ?? "absent"}`;
  return undefined;
}

/** A transport over a fetch-shaped function (the app's own `fetch` in process, a test's stand-in). */
export function fetchTransport(fetcher: (request: Request) => Promise<Response>, baseUrl: string): Transport {
  return async ({ method, path, headers, body }) => {
    const response = await fetcher(new Request(new URL(path, baseUrl), { method, headers, body }));
    await response.arrayBuffer();
    return { status: response.status, header: (name) => response.headers.get(name) };
  };
}

/** What a failed fetch says: its cause's code (ECONNREFUSED…) where it has one. */
export function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}
