// A typed client of the API: openapi-fetch over the types generated from its OpenAPI document
// (schema.ts, `npm run client:generate`). Paths, parameters, bodies and answers are checked by
// the compiler; numbers are numbers (`limit: 10`).
//
//   import { createClient } from "edge-race-free/client";
//   const api = createClient({ baseUrl: "http://127.0.0.1:8787", token });
//   const { data, error, response } = await api.GET("/v1/documents", { params: { query: { limit: 10 } } });
import createFetchClient, { type Client, type ClientOptions, defaultBodySerializer } from "openapi-fetch";
import type { components, paths } from "./schema.ts";

export type { components, operations, paths } from "./schema.ts";

/** Every error's body (RFC 9457): `code` is the stable string to switch on. */
export type Problem = components["schemas"]["Problem"];

export interface ApiClientOptions extends ClientOptions {
  /** The bearer token sent with every request, or a function giving it (called per request). */
  token?: string | (() => string | Promise<string>);
}

export type ApiClient = Client<paths>;

/**
 * Every JSON body of the API is an object: a string body is a text one (the asset import's CSV),
 * sent as written. openapi-fetch's own serializer would send it as a JSON string, quotes and all.
 */
const bodySerializer = (body: unknown) => (typeof body === "string" ? body : defaultBodySerializer(body));

export function createClient({ token, ...options }: ApiClientOptions = {}): ApiClient {
  const client = createFetchClient<paths>({ bodySerializer, ...options });
  if (token !== undefined) {
    client.use({
      async onRequest({ request }) {
        request.headers.set("authorization", `Bearer ${typeof token === "function" ? await token() : token}`);
        return request;
      },
    });
  }
  return client;
}
