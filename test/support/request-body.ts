/**
 * What a test request sends: a plain object as JSON (typed so, unless `headers` say otherwise), a
 * string or bytes as-is.
 */
export function requestBody(body: unknown, headers: Headers): string | Uint8Array<ArrayBuffer> | undefined {
  if (body === undefined || typeof body === "string") return body;
  if (body instanceof Uint8Array) return body as Uint8Array<ArrayBuffer>;
  if (!headers.has("content-type")) headers.set("content-type", "application/json");
  return JSON.stringify(body);
}
