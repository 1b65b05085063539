import type { SpanContext } from "@opentelemetry/api";
import type { Context } from "hono";
import type { Background } from "./background/job.ts";
import type { ProblemCode } from "./http/problem.ts";
import type { Logger } from "./log.ts";
import type { KvCache } from "./ports/kv.ts";
import type { RateLimiter } from "./ports/rate-limit.ts";
import type { Sql } from "./ports/sql.ts";
import type { Settings } from "./settings/settings.ts";
import type { Telemetry } from "./telemetry/tracing.ts";
import type { Principal } from "./tokens/auth.ts";

/** What every runtime hands to core: the two ports, settings, and where logs go. */
export interface AppDeps {
  sql: Sql;
  kv: KvCache;
  settings: Settings;
  /** The name `/healthz` reports: core does not know which runtimes exist. */
  runtime: string;
  logger?: Logger;
  /** How AUTH_JWKS_URL is fetched, when not with the global `fetch` (Fastly: a named backend). */
  jwksFetch?: typeof fetch;
  /** Counts requests per caller and per tenant (settings.rateLimits); none: nothing is limited. */
  rateLimiter?: RateLimiter;
  /**
   * The client's address as the platform vouches for it (the socket, a header its own edge sets),
   * never a header a client may write; none: refused tokens are not counted per client.
   */
  clientAddress?: (c: Context<AppEnv>) => string | undefined;
  /** Records and exports traces (OTEL_EXPORTER_OTLP_ENDPOINT); none: nothing is traced. */
  telemetry?: Telemetry;
  /** The deployment's background jobs, shared with the entry's trigger; made when absent. */
  background?: Background;
}

/** What a capability's routes are built over: AppDeps, with what the app fills in. */
export type RouteDeps = AppDeps & { logger: Logger; background: Background };

/** Hono's per-request variables. */
export interface AppEnv {
  Variables: {
    principal: Principal;
    requestId: string;
    /** The ports as this request uses them: traced and measured for Server-Timing when those are on. */
    sql: Sql;
    kv: KvCache;
    /** Runs token verification or rate limiting, measured as its part of Server-Timing when it is on. */
    timed: <T>(part: "auth" | "limit", work: () => Promise<T>) => Promise<T>;
    /** The request's server span, when tracing is on: its trace goes in the request's log line. */
    trace?: SpanContext;
    /** The Idempotency-Key the request's route honours (POST /v1/assets, /v1/documents), once read. */
    idempotencyKey?: string;
    /** The code of the problem this request is answered with, set where the answer is made. */
    problemCode?: ProblemCode;
  };
}
