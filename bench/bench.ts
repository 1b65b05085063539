// `npm run bench`: the same workload on every runtime (started here, over one database and from
// the same cache state) or on deployments given by URL, measured side by side in one run:
// throughput, latency percentiles, errors, where the time went (Server-Timing), cross-edge
// staleness, cold starts. Writes bench.json, bench.md, bench.html, bench.svg and bench-split.svg.
import { relative } from "node:path";
import type { RuntimeName } from "../dev/launchers/index.ts";
import { runtimeNames } from "../dev/launchers/index.ts";
import { benchOptions, positiveInt, progress, runBenchCommand, selection, UsageError } from "./lib/cli.ts";
import { givenTokens, keyTokens, type TokenSource } from "./lib/tokens.ts";
import { RequestBudget } from "./load/budget.ts";
import { runOnDeployments } from "./load/deployment-run.ts";
import { parseTargets, recordedCommand } from "./load/deployments.ts";
import { writeHtmlFromJson } from "./load/html-report.ts";
import { runOnLocalRuntimes } from "./load/local-run.ts";
import { defaultOperations, type OperationName, operationNames, operations } from "./load/operations.ts";
import { BENCH_PHASES, startBenchClock } from "./load/plan.ts";
import { DEFAULT_PRICE_FILE, loadPrices, type Price } from "./load/price-file.ts";
import { writeRun } from "./load/results.ts";
import { compareFiles, DEFAULT_NOISE } from "./stats/compare.ts";

const USAGE = `npm run bench -- [options]
       npm run bench -- --compare OLD.json NEW.json [--noise PCT]
  --compare         per target and operation, the change of the median p50 and req/s between two
                    runs' bench.json with its 95 % interval; "no significant difference" when the
                    interval holds zero; "within noise" when it lies within ±PCT % (default 5)
  --target NAME=URL  a deployment already running (repeat for several); without any, the bench
                     starts the runtimes here (--runtimes) over a database of its own
  --requests N      requests per target, operation and round (default 200; targets 50)
  --concurrency N   requests in flight at once (default 4: two cores serve client and servers; targets 2)
  --rate N          the open model instead: N requests per second per target and operation, each
                    timed from when it was due (a stall counts in every request due meanwhile);
                    --concurrency then only sets how many PATCH chains run side by side
  --rounds N        measured rounds; the spread between them is reported (default 3)
  --warmup N        unmeasured requests per target and operation first (default 20; targets 5)
  --operations LIST ${operationNames.join(",")}
                    (default: ${defaultOperations.local.join(",")};
                    targets: ${defaultOperations.targets.join(",")})
  --time-limit MS   no new request in a phase after this long (default 6000)
  --staleness N     unlinks per target pair timed for cross-edge staleness (default 3; targets 1; 0: none)
  --cold N          first requests after a pause, per target (default 0: none)
  --idle SECONDS    the pause before each of them (default 30)
  --max-requests N  the most requests the run sends, clean-up included (default: none; targets 3000)
  --out DIR         where the results go (default bench/results)
  --prices FILE     the price table for the cost per million operations (default bench/prices.json)
  --html FILE       no run: bench.html made again from a saved bench.json, written beside it
 The runtimes started here:
  --runtimes LIST   ${runtimeNames.join(",")} (default: all)
  --db-rtt MS       the Neon endpoint holds each round trip this long, as the edge-to-database
                    distance would (default 0: same machine; at the edge 5–40)
  Database: DATABASE_URL (postgres://…, a scratch schema is used and dropped), else embedded PGlite.
  With PostgreSQL the bench also times the naive write and the local endpoint's overhead over pg.
 Signing in to deployments (one of):
  --token JWT       (or BENCH_TOKEN) one identity for everything; --admin-token (or BENCH_ADMIN_TOKEN)
                    for the admin operation. The operations needing many users are left out.
  --sign-with KEY.pem  mint tokens from this private key (RSA, P-256 or Ed25519) whose public key
                    the deployments' JWKS holds; --kid ID, --iss ISSUER, --aud AUDIENCE as they
                    check them; --tenant-claim (default tid) and --role-claim (default role)
 The bench beside autocannon on the same target: npm run bench:cross-check -- --help`;

const LOCAL_DEFAULTS = {
  requests: 200,
  concurrency: 4,
  warmup: 20,
  staleness: 3,
  maxRequests: Number.POSITIVE_INFINITY,
};
const TARGET_DEFAULTS = { requests: 50, concurrency: 2, warmup: 5, staleness: 1, maxRequests: 3000 };

function parse() {
  return benchOptions(USAGE, {
    target: { type: "string", multiple: true },
    html: { type: "string" },
    requests: { type: "string" },
    concurrency: { type: "string" },
    rate: { type: "string" },
    rounds: { type: "string" },
    warmup: { type: "string" },
    runtimes: { type: "string" },
    operations: { type: "string" },
    "time-limit": { type: "string" },
    "db-rtt": { type: "string" },
    staleness: { type: "string" },
    cold: { type: "string" },
    idle: { type: "string" },
    "max-requests": { type: "string" },
    prices: { type: "string" },
    token: { type: "string" },
    "admin-token": { type: "string" },
    "sign-with": { type: "string" },
    kid: { type: "string" },
    iss: { type: "string" },
    aud: { type: "string" },
    "tenant-claim": { type: "string", default: "tid" },
    "role-claim": { type: "string", default: "role" },
  });
}

type Values = ReturnType<typeof parse>;

function options(values: Values, prices: { file: string; table: Price[] }) {
  const targets = parseTargets(values.target ?? []);
  const defaults = targets.length > 0 ? TARGET_DEFAULTS : LOCAL_DEFAULTS;
  const picked = values.operations;
  return {
    targets,
    requests: positiveInt("requests", values.requests, defaults.requests),
    concurrency: positiveInt("concurrency", values.concurrency, defaults.concurrency),
    ratePerSecond: values.rate === undefined ? undefined : positiveInt("rate", values.rate, 0),
    rounds: positiveInt("rounds", values.rounds, 3),
    warmup: positiveInt("warmup", values.warmup, defaults.warmup, 0),
    runtimes: selection<RuntimeName>("runtimes", values.runtimes, runtimeNames),
    operations:
      picked === undefined
        ? defaultOperations[targets.length > 0 ? "targets" : "local"]
        : selection<OperationName>("operations", picked, operationNames),
    explicitOperations: picked !== undefined,
    timeLimitMs: positiveInt("time-limit", values["time-limit"], 6_000),
    dbRttMs: positiveInt("db-rtt", values["db-rtt"], 0, 0),
    staleness: positiveInt("staleness", values.staleness, defaults.staleness, 0),
    cold: positiveInt("cold", values.cold, 0, 0),
    idleSeconds: positiveInt("idle", values.idle, 30, 0),
    maxRequests: positiveInt("max-requests", values["max-requests"], defaults.maxRequests),
    out: values.out,
    prices,
  };
}

type Options = ReturnType<typeof options>;

/** How a run on deployments signs in: given tokens, or minted from a key. */
async function deploymentTokens(values: Values): Promise<TokenSource> {
  const token = values.token ?? process.env.BENCH_TOKEN;
  const adminToken = values["admin-token"] ?? process.env.BENCH_ADMIN_TOKEN;
  if (token && values["sign-with"]) throw new UsageError("--token and --sign-with: one way of signing in, not both");
  if (token) return givenTokens(token, adminToken);
  if (!values["sign-with"]) {
    throw new UsageError(
      "--target needs a token: --token (or BENCH_TOKEN), or --sign-with KEY.pem [--kid --iss --aud]",
    );
  }
  return keyTokens({
    keyFile: values["sign-with"],
    kid: values.kid,
    issuer: values.iss,
    audience: values.aud,
    tenantClaim: values["tenant-claim"]!,
    roleClaim: values["role-claim"]!,
  });
}

/** What deployments cannot do, refused before anything is sent; what one identity cannot do, left out. */
function checkForDeployments(opts: Options, values: Values, tokens: TokenSource): OperationName[] {
  if (values.runtimes !== undefined || values["db-rtt"] !== undefined) {
    throw new UsageError("--runtimes and --db-rtt are for the runtimes the bench starts, not for --target");
  }
  const local = opts.operations.filter((name) => ["local-database", "baseline"].includes(operations[name].needs ?? ""));
  if (local.length > 0) throw new UsageError(`--operations ${local.join(",")}: only on the runtimes the bench starts`);
  const manyUsers = opts.operations.filter((name) => operations[name].needs === "many-users");
  if (!tokens.oneIdentity || manyUsers.length === 0) return opts.operations;
  if (opts.explicitOperations)
    throw new UsageError(`--operations ${manyUsers.join(",")}: needs --sign-with (a new user per request)`);
  progress(`Left out with one identity (--token): ${manyUsers.join(", ")}`);
  return opts.operations.filter((name) => !manyUsers.includes(name));
}

/** One DELETE for each link or asset the run can make on its targets: held back for the clean-up. */
function plannedCreates(run: Options, targets: number, oneIdentity: boolean): number {
  const perTarget = run.operations.reduce(
    (sum, name) => sum + (operations[name].creates?.({ ...run, oneIdentity }) ?? 0),
    0,
  );
  return perTarget * targets;
}

/** `--noise PCT`: a per cent from 0 to 100, as a share. */
function noiseShare(value: string | undefined): number {
  const percent = Number(value);
  if (value === undefined || value.trim() === "" || !(percent >= 0 && percent <= 100)) {
    throw new UsageError(`--noise: a per cent from 0 to 100, not ${value ?? "nothing"}`);
  }
  return percent / 100;
}

async function main(): Promise<number> {
  const compareAt = process.argv.indexOf("--compare");
  if (compareAt >= 0) {
    const [before, after] = process.argv.slice(compareAt + 1, compareAt + 3);
    if (!before || !after) throw new UsageError("--compare needs two files: OLD.json NEW.json");
    const noiseAt = process.argv.indexOf("--noise");
    const noise = noiseAt < 0 ? DEFAULT_NOISE : noiseShare(process.argv[noiseAt + 1]);
    process.stdout.write(await compareFiles(before, after, noise));
    return 0;
  }
  const values = parse();
  if (values.html !== undefined) {
    progress(`Written: ${await writeHtmlFromJson(values.html)}`);
    return 0;
  }
  const priceFile = values.prices ?? DEFAULT_PRICE_FILE;
  const table = await loadPrices(priceFile);
  const opts = options(values, { file: relative(process.cwd(), priceFile), table });
  const command = recordedCommand(process.argv.slice(2));
  if (opts.targets.length === 0) {
    const budget = new RequestBudget(opts.maxRequests);
    const clock = startBenchClock(opts, opts.runtimes.length, "local");
    clock.begin(BENCH_PHASES.start);
    const outcome = await runOnLocalRuntimes({ ...opts, clock }, budget);
    await writeRun(outcome, opts, command, budget.sent);
    return 0;
  }
  const tokens = await deploymentTokens(values);
  const run = { ...opts, operations: checkForDeployments(opts, values, tokens) };
  const reserve = plannedCreates(run, opts.targets.length, tokens.oneIdentity);
  if (reserve >= opts.maxRequests) {
    throw new UsageError(
      `--max-requests ${opts.maxRequests} leaves nothing once the clean-up's ${reserve} are held back`,
    );
  }
  const budgets = {
    run: new RequestBudget(opts.maxRequests - reserve, opts.maxRequests),
    cleanup: new RequestBudget(reserve, opts.maxRequests),
  };
  progress(
    `At most ${opts.maxRequests} requests (${reserve} of them held back for the clean-up), ` +
      `${opts.ratePerSecond === undefined ? `${opts.concurrency} in flight` : `${opts.ratePerSecond} per second (open model)`}, ` +
      `no phase longer than ${opts.timeLimitMs} ms`,
  );
  const clock = startBenchClock(run, opts.targets.length, "targets");
  const outcome = await runOnDeployments({ ...run, clock }, opts.targets, tokens, budgets);
  await writeRun(outcome, run, command, budgets.run.sent + budgets.cleanup.sent);
  return 0;
}

await runBenchCommand(USAGE, main);
