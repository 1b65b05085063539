import { type Context, Hono, type MiddlewareHandler } from "hono";
import { createBackground } from "./background/runner.ts";
import { CAPABILITIES, CAPABILITY_JOBS } from "./capabilities.ts";
import type { AppDeps, AppEnv, RouteDeps } from "./deps.ts";
import { clientKey } from "./http/client-address.ts";
import { crossOrigin, methodsOfRouter } from "./http/cors.ts";
import { fieldValue } from "./http/field-value.ts";
import { isRecognizedMethod, RECOGNIZED_METHODS, unrecognizedMethod } from "./http/methods.ts";
import { pathsNamingSomething } from "./http/path.ts";
import { ProblemError, problemResponse } from "./http/problem.ts";
import { rateLimits } from "./http/rate-limit.ts";
import { refusedTokenQuota } from "./http/refused-tokens.ts";
import { requestLogging } from "./http/request-id.ts";
import { routedPath } from "./http/request-url.ts";
import { serverTiming } from "./http/server-timing.ts";
import { waitUntilOf } from "./http/wait-until.ts";
import { consoleLogger, errorMessage, type Logger } from "./log.ts";
import { type DeclaredRoute, isMethodNotAllowedHandler, mountCapabilities } from "./mount.ts";
import { openApi } from "./openapi/index.ts";
import { DatabaseOutcomeUnknownError, DatabaseUnavailableError } from "./ports/sql.ts";
import { SettingsError } from "./settings/error.ts";
import { misconfiguredProblem } from "./settings/misconfigured.ts";
import { requestTracing } from "./telemetry/middleware.ts";
import { traceLogFields } from "./telemetry/tracing.ts";
import { type Authenticate, createAuthenticator } from "./tokens/auth.ts";
import type { Background } from "./tokens/jwks-cache.ts";

export type { AppDeps, AppEnv } from "./deps.ts";

/** The whole API as one Web-standard handler: `createApp(deps).fetch(request)`. */
export function createApp(deps: AppDeps) {
  const logger = deps.logger ?? consoleLogger;
  // Made on the first request under /v1: an app that never sees a token never prepares its keys.
  let authenticate: Authenticate | undefined;
  const routeDeps: RouteDeps = {
    ...deps,
    logger,
    background: deps.background ?? createBackground({ ...deps, logger }, { jobs: CAPABILITY_JOBS }),
  };
  // One trailing slash is the same path (docs/API.md), to the routes and their 405s; a path is
  // routed as the URL parser writes it, whatever the runtime hands over (core/http/request-url.ts).
  const app = new Hono<AppEnv>({ getPath: routedPath });

  // First: the request's span covers everything the app does with it (core/telemetry/). With
  // tracing off nothing is installed: a request runs as if tracing did not exist.
  if (deps.telemetry) app.use(requestTracing(deps, deps.telemetry));
  // Its total covers everything the app does with a request, the log line included.
  app.use(serverTiming(deps));
  app.use(requestLogging(logger));
  // Every answer under /v1 is one caller's (a tenant's data, or whether something exists there):
  // no cache, shared or private, may keep it or answer another request with it (RFC 9111 §5.2.2.5).
  // Set after the rest has answered, every refusal (a preflight's answer too) and 304 included (a 304
  // carries what its 200 would).
  app.use("/v1/*", async (c, next) => {
    await next();
    c.res.headers.set("cache-control", "no-store");
  });
  // Before the token check: a browser's preflight carries no token. With no origin listed there
  // is nothing to do, and a step of Hono's chain less on every request.
  if (deps.settings.corsOrigins.length > 0) {
    app.use(crossOrigin(deps, methodsOfRouter(app.router, RECOGNIZED_METHODS, isMethodNotAllowedHandler)));
  }
  app.use(recognizedMethodsOnly);
  app.use(pathsNamingSomething);
  // Counted once the caller is known; in the token check's middleware, as another would cost
  // every request a step of Hono's chain.
  const limit = deps.rateLimiter && rateLimits(deps.rateLimiter, () => deps.settings.rateLimits);
  const { clientAddress } = deps;
  const guarded =
    deps.rateLimiter && clientAddress
      ? refusedTokenQuota({
          limiter: deps.rateLimiter,
          policy: () => deps.settings.rateLimits.refusedTokens,
          clientOf: (c) =>
            clientKey(clientAddress(c), fieldValue(c.req.raw.headers, "x-forwarded-for"), deps.settings.trustedProxies),
        })
      : <T>(_c: unknown, check: () => Promise<T>) => check();
  // Every route but the public ones (the probes, the document) is under /v1, behind the token check.
  app.use("/v1/*", async (c, next) => {
    authenticate ??= createAuthenticator(deps.settings.auth, {
      fetch: deps.jwksFetch,
      kv: deps.kv,
      kvSecret: deps.settings.jwksKvSecret,
      logger,
    });
    const verify = authenticate;
    // Looked up only when a key set refresh needs it: where there is no execution context (Node,
    // Deno), Hono's getter throws, and an Error's stack on every request costs more than the check.
    const background: Background = (work) => waitUntilOf(c)?.(work);
    const check = () =>
      c.get("timed")("auth", () => verify(fieldValue(c.req.raw.headers, "authorization"), background));
    c.set("principal", await guarded(c, check));
    await (limit ? limit(c, next) : next());
  });
  // Every capability (core/capabilities.ts lists them), then the document of them all.
  const routes = mountCapabilities(app, [...CAPABILITIES, openApi(app, CAPABILITIES)], routeDeps);
  declared.set(app, routes);

  app.notFound((c) => answerError(new ProblemError(404, "not_found", notFoundDetail(c.req.path)), c, logger));
  app.onError((error, c) => answerError(error, c, logger));
  return app;
}

export type App = ReturnType<typeof createApp>;

/** The interactive reference is served in front of the app, by one server only: elsewhere /docs says where it is. */
const notFoundDetail = (path: string) =>
  /^\/docs(\/|$)/.test(path)
    ? "Not served here: a server with API_DOCS=on (npm start) serves the API reference at /docs; the document is /openapi.json."
    : "No such route.";

const declared = new WeakMap<App, readonly DeclaredRoute[]>();

/** The routes `app` serves, as their capabilities declared them. */
export const routesOf = (app: App): readonly DeclaredRoute[] => declared.get(app) ?? [];

const recognizedMethodsOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!isRecognizedMethod(c.req.method)) {
    throw unrecognizedMethod();
  }
  await next();
};

function answerError(error: unknown, c: Context<AppEnv>, logger: Logger): Response {
  const { problem, headers } = problemOf(error, c, logger);
  // Kept for the request's span: the answer's body is not read back to learn it.
  c.set("problemCode", problem.code);
  return problemResponse(problem, headers);
}

function problemOf(
  error: unknown,
  c: Context<AppEnv>,
  logger: Logger,
): { problem: ProblemError; headers?: Record<string, string> } {
  if (error instanceof ProblemError) return { problem: error };
  // The SQL port's refused login: the connection string is wrong, whatever the request.
  if (error instanceof SettingsError) return { problem: misconfiguredProblem(error, logger) };
  // The request's id and, traced, its trace, whose spans hold the statement that failed.
  const ids = { requestId: c.get("requestId"), ...traceLogFields(c.get("trace")) };
  // A read whose answer was lost wrote nothing either way: for it, "unknown" is "unavailable".
  const isRead = c.req.method === "GET" || c.req.method === "HEAD";
  if (error instanceof DatabaseUnavailableError || (error instanceof DatabaseOutcomeUnknownError && isRead)) {
    logger.log("warn", "database_unavailable", { ...ids, error: errorMessage(error) });
    return {
      problem: new ProblemError(
        503,
        "database_unavailable",
        "The database cannot be reached; nothing was written. Retry shortly.",
      ),
      headers: { "retry-after": "2" },
    };
  }
  if (error instanceof DatabaseOutcomeUnknownError) {
    // No Retry-After: a blind retry might write twice. An Idempotency-Key makes the retry safe.
    logger.log("warn", "database_outcome_unknown", { ...ids, error: errorMessage(error) });
    // Only a request whose route honours its Idempotency-Key can be retried with it (links and the
    // import ignore one).
    const retry = c.get("idempotencyKey")
      ? "Retry with the same Idempotency-Key: the retry answers as the first attempt would have."
      : "Check before retrying: a conditional or idempotent write may be retried as it is.";
    return {
      problem: new ProblemError(
        504,
        "database_outcome_unknown",
        `The database did not confirm the outcome: the change may or may not have been made. ${retry}`,
      ),
    };
  }
  // Details stay in the log; the client gets no stack trace or internals.
  logger.log("error", "unhandled_error", { ...ids, error: errorMessage(error) });
  return { problem: new ProblemError(500, "internal_error", "An unexpected error occurred.") };
}
