// One planned request and how it is sent: shared by the load worker (over loopback HTTP) and the
// in-process KV probe (straight into app.fetch), so both send exactly the same requests.

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

export interface Sent {
  failure: Failure;
  /** The answer's Server-Timing header, when it had one. */
  serverTiming: string | null;
}

/** Sends one request, reads the whole body, checks it; updates `etags` for chains. */
export async function send(
  fetcher: (request: Request) => Promise<Response>,
  baseUrl: string,
  planned: PlannedRequest,
  expect: Expectation,
  etags: Map<string, string>,
): Promise<Sent> {
  let serverTiming: string | null = null;
  const failure = await sendAndCheck(fetcher, baseUrl, planned, expect, etags, (response) => {
    serverTiming = response.headers.get("server-timing");
  });
  return { failure, serverTiming };
}

async function sendAndCheck(
  fetcher: (request: Request) => Promise<Response>,
  baseUrl: string,
  planned: PlannedRequest,
  expect: Expectation,
  etags: Map<string, string>,
  answered: (response: Response) => void,
): Promise<Failure> {
  const headers = new Headers(planned.headers);
  if (planned.chain) headers.set("if-match", etags.get(planned.path) ?? "*");
  let response: Response;
  try {
    response = await fetcher(
      new Request(new URL(planned.path, baseUrl), { method: planned.method, headers, body: planned.body }),
    );
    await response.arrayBuffer();
  } catch (error) {
    return `network: ${causeOf(error)}`;
  }
  answered(response);
  const etag = response.headers.get("etag");
  if (planned.chain && etag) etags.set(planned.path, etag);
  if (response.status !== expect.status) return `HTTP ${response.status}`;
  const source = response.headers.get("x-link-source");
  if (expect.linkSource && source !== expect.linkSource) return `X-Link-Source: ${source ?? "absent"}`;
  return undefined;
}

/** What a failed fetch says: its cause's code (ECONNREFUSED…) where it has one. */
export function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}
