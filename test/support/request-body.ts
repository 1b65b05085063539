/** What a test request sends: a plain object as JSON (typed so, unless `headers` say otherwise), a string as-is. */
export function requestBody(body: unknown, headers: Headers): string | undefined {
  if (body === undefined || typeof body === "string") return body;
  if (!headers.has("content-type")) headers.set("content-type", "application/json");
  return JSON.stringify(body);
}
