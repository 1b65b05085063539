// How the page calls the API: the one place that knows it is `fetch`, so the tour reads the same
// over any client that answers a status, the headers a page may read, and the parsed body.

export interface ApiAnswer {
  status: number;
  /** Every response header the browser lets the page read (CORS exposes the contract's). */
  headers: Record<string, string>;
  body: any;
}

export interface ApiRequest {
  token: string;
  headers?: Record<string, string>;
  /** Sent as JSON, with `contentType` (default application/json). */
  json?: unknown;
  contentType?: string;
}

export type ApiCall = (method: string, path: string, request: ApiRequest) => Promise<ApiAnswer>;

/** Calls the API at `base` with the browser's `fetch` (cross-origin: CORS decides what is read). */
export function fetchApi(base: string): ApiCall {
  return async (method, path, { token, headers = {}, json, contentType = "application/json" }) => {
    const sent = new Headers({ ...headers, authorization: `Bearer ${token}` });
    if (json !== undefined) sent.set("content-type", contentType);
    const response = await fetch(new URL(path, base), {
      method,
      headers: sent,
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: Object.fromEntries(response.headers),
      body: text === "" ? undefined : JSON.parse(text),
    };
  };
}
