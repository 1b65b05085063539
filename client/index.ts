// A typed client of the API: openapi-fetch over the types generated from its OpenAPI document
// (schema.ts, `npm run client:generate`). Paths, parameters, bodies and answers are checked by
// the compiler; numbers are numbers (`limit: 10`).
//
//   import { createClient } from "edge-race-free/client";
//   const api = createClient({ baseUrl: "http://127.0.0.1:8787", token });
//   const { data, error, response } = await api.GET("/v1/documents", { params: { query: { limit: 10 } } });
import createFetchClient, {
  type Client,
  type ClientOptions,
  defaultBodySerializer,
  defaultPathSerializer,
  type Middleware,
} from "openapi-fetch";
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
 * An answer that is none of the API's, thrown rather than returned, as a network failure is: a
 * proxy's or platform's error page (an HTML 502, an empty 503), an error that is not a problem of
 * the API, a success that is not JSON. `error` then only ever holds a problem of the API, as typed.
 * `response` keeps the answer's status and headers (a gateway's `Retry-After`), `body` its text.
 */
export class UnexpectedResponseError extends Error {
  override readonly name = "UnexpectedResponseError";
  /** The answer's status (0: a browser's opaque redirect). */
  readonly status: number;
  readonly response: Response;
  /** The answer's text, as received. */
  readonly body: string;

  constructor(request: Request, response: Response, body: string) {
    const answer = [response.status, response.statusText].join(" ").trim();
    const type = response.headers.get("content-type") ?? "no content type";
    const what = body === "" ? `${type}, no body` : type;
    super(`${request.method} ${new URL(request.url).pathname} answered ${answer} (${what}): not an answer of the API`);
    this.status = response.status;
    this.response = response;
    this.body = body;
  }
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
const PROBLEM_TYPE = /^application\/problem\+json\s*(?:;|$)/i;

/** A problem as the API sends one: problem+json, an object with its `status` and `code`. */
function isProblem(response: Response, body: string): boolean {
  if (!PROBLEM_TYPE.test(response.headers.get("content-type") ?? "")) return false;
  try {
    const problem: unknown = JSON.parse(body);
    return (
      typeof problem === "object" &&
      problem !== null &&
      typeof (problem as Problem).code === "string" &&
      typeof (problem as Problem).status === "number"
    );
  } catch {
    return false;
  }
}

/**
 * Lets through what the types describe: a 2xx in JSON (204 has no body), a 304 (a conditional
 * GET's "unchanged"), and errors that are the API's problems. Anything else throws
 * UnexpectedResponseError, before openapi-fetch would hand a gateway's HTML page on as `error`
 * (typed as a problem), an empty error as neither `data` nor `error`, or throw a SyntaxError.
 */
const onlyTheApisAnswers: Middleware = {
  async onResponse({ request, response, options }) {
    const { status } = response;
    if (status === 304 || request.method === "HEAD") return undefined;
    const success = status >= 200 && status < 300;
    if (success && (status === 204 || options.parseAs !== "json")) return undefined;
    if (success && JSON_TYPE.test(response.headers.get("content-type") ?? "")) return undefined;
    const body = await response.clone().text();
    if (!success && isProblem(response, body)) return undefined;
    throw new UnexpectedResponseError(request, response, body);
  },
};

/**
 * Every JSON body of the API is an object: a string body is a text one (the asset import's CSV),
 * sent as written. openapi-fetch's own serializer would send it as a JSON string, quotes and all.
 */
const bodySerializer = (body: unknown) => (typeof body === "string" ? body : defaultBodySerializer(body));

/**
 * A path parameter that is empty, `.` or `..` would make a URL naming another path (a URL's dot
 * segments are resolved away, percent-encoded or not): the request would go, silently, to another
 * route. It is refused here, before anything is sent.
 */
const pathSerializer = (pathname: string, params: Record<string, unknown>) => {
  for (const [name, value] of Object.entries(params)) {
    if (value === "" || value === "." || value === "..") {
      throw new TypeError(`The path parameter ${name} cannot be ${JSON.stringify(value)}: no URL can name it.`);
    }
  }
  return defaultPathSerializer(pathname, params);
};

export function createClient({ token, ...options }: ApiClientOptions = {}): ApiClient {
  const client = createFetchClient<paths>({ bodySerializer, pathSerializer, ...options });
  // Registered first, so its onResponse runs last (openapi-fetch runs them in reverse): it judges
  // the answer as the caller's own middleware left it.
  client.use(onlyTheApisAnswers);
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
