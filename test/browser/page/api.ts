// How the page reads an answer of the typed client (client/): its status, the headers a page may
// read, and its body (the data, or the problem of an error).

export interface ApiAnswer {
  status: number;
  /** Every response header the browser lets the page read (CORS exposes the contract's). */
  headers: Record<string, string>;
  body: any;
}

/** What every call of the client resolves to (openapi-fetch). */
interface ClientResult {
  response: Response;
  data?: unknown;
  error?: unknown;
}

export async function answerOf(call: Promise<ClientResult>): Promise<ApiAnswer> {
  const { response, data, error } = await call;
  return { status: response.status, headers: Object.fromEntries(response.headers), body: data ?? error };
}
