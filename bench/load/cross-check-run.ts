// The cross-check's target and requests, planned as the bench plans them: an operation on a
// node runtime started over a database of the bench's own (bench/load/environment.ts), signed
// with the runtime's own secret, or on a deployment given by URL and token.
import { randomBytes } from "node:crypto";
import { launchRuntime } from "../../dev/launchers/index.ts";
import { muteStdout } from "../lib/cli.ts";
import { secretTokens, type TokenSource } from "../lib/tokens.ts";
import { type Cleanup, removeWhatWasMade } from "./cleanup.ts";
import { type CrossCheck, crossCheck } from "./cross-check.ts";
import { openBenchDatabase } from "./environment.ts";
import { startLoadGenerator } from "./load-generator.ts";
import { type Made, type OperationContext, type OperationName, operations } from "./operations.ts";
import type { Target } from "./rounds.ts";

export interface CrossCheckSettings {
  operation: OperationName;
  /** How long the bench's database endpoint holds each round trip (bench's --db-rtt). */
  dbRttMs: number;
  requests: number;
  concurrency: number;
  turns: number;
}

const UNLIMITED = 2 ** 32 - 1;

interface CheckedTarget {
  url: string;
  tenant: string;
  tokens: TokenSource;
  seed?: OperationContext["seed"];
  /** What the setup made there, to be removed after. */
  made?: Made;
}

/** Seeds and plans the operation as bench/load/rounds.ts does, then runs both clients on it. */
async function checkTarget(settings: CrossCheckSettings, target: CheckedTarget): Promise<CrossCheck> {
  const context: OperationContext = {
    owner: "cross-check",
    tag: "cross-check",
    tenant: target.tenant,
    count: settings.requests,
    concurrency: settings.concurrency,
    tokens: target.tokens,
    seed: target.seed,
    call: (planned) => fetch(new URL(planned.path, target.url), { ...planned }),
    etags: new Map(),
    made: target.made ?? { links: [] },
  };
  const operation = operations[settings.operation];
  await operation.setup?.(context);
  const requests = await operation.plan(context);
  const load = startLoadGenerator();
  try {
    const plan = { baseUrl: target.url, expect: operation.expect, concurrency: settings.concurrency };
    // Unmeasured first turn: both clients open their connections and the runtime warms up.
    await crossCheck({ ...plan, requests: requests.slice(0, 100), turns: 1 }, load);
    return await crossCheck({ ...plan, requests, turns: settings.turns }, load);
  } finally {
    await load.close();
  }
}

/** On the node runtime, started here as the bench starts it. */
export async function crossCheckLocalNode(settings: CrossCheckSettings): Promise<CrossCheck> {
  const db = await openBenchDatabase(undefined, settings.dbRttMs);
  const secret = randomBytes(32).toString("base64url");
  const unmute = muteStdout(); // the runtime's line per request
  try {
    const runtime = await launchRuntime(
      "node",
      {
        AUTH_SECRET: secret,
        DATABASE_URL: db.databaseUrl,
        NEON_FETCH_ENDPOINT: db.neonFetchEndpoint,
        LINK_CACHE_TTL_SECONDS: "3600",
        // Both clients look up as one caller: more than a caller's default minute of reads.
        RATE_LIMIT_CALLER_READS: String(UNLIMITED),
        RATE_LIMIT_TENANT_READS: String(UNLIMITED),
      },
      { log: "file", release: true },
    );
    try {
      return await checkTarget(settings, {
        url: runtime.url,
        tenant: "bench",
        tokens: secretTokens(secret),
        seed: db.seed,
      });
    } finally {
      await runtime.close();
    }
  } finally {
    unmute();
    await db.close();
  }
}

/** On a deployment, in a tenant of the run's own; the links its setup made are removed after. */
export async function crossCheckDeployment(
  settings: CrossCheckSettings,
  target: Target,
  tokens: TokenSource,
): Promise<{ check: CrossCheck; cleanup: Cleanup }> {
  const tenant = `bench-${randomBytes(4).toString("hex")}`;
  const made: Made = { links: [] };
  try {
    return { check: await checkTarget(settings, { url: target.url, tenant, tokens, made }), cleanup: await remove() };
  } catch (error) {
    await remove();
    throw error;
  }
  function remove() {
    const state = new Map([[target.name, { etags: new Map<string, string>(), made }]]);
    return removeWhatWasMade({ state, tokens, tenant }, [target], fetch);
  }
}
