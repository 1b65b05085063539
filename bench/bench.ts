// `npm run bench`: the same workload on every runtime (started here, over one database and from
// the same cache state) or on deployments given by URL, measured side by side in one run:
// throughput, latency percentiles, errors, where the time went (Server-Timing), cross-edge
// staleness, cold starts. Writes bench.json, bench.md, bench.html, bench.svg and bench-split.svg.
import { relative } from "node:path";
import type { RuntimeName } from "../dev/launchers/index.ts";
import { runtimeNames } from "../dev/launchers/index.ts";
import { COLLECTOR_MISSING, collectorInstalled } from "../dev/support/collector.ts";
import {
  benchOptions,
  bounds,
  OUT_HELP,
  optionNames,
  progress,
  runBenchCommand,
  selection,
  UsageError,
  type WholeNumber,
  wholeNumber,
} from "./lib/cli.ts";
import { benchWarnings, warningLine } from "./lib/small-run.ts";
import { givenTokens, keyTokens, SIGN_IN_OPTIONS, type TokenSource } from "./lib/tokens.ts";
import { RequestBudget } from "./load/budget.ts";
import { runOnDeployments } from "./load/deployment-run.ts";
import { parseTargets, recordedCommand } from "./load/deployments.ts";
import { writeHtmlFromJson } from "./load/html-report.ts";
import { runOnLocalRuntimes } from "./load/local-run.ts";
import { defaultOperations, type OperationName, operationNames, operations } from "./load/operations.ts";
import { pinning } from "./load/pin.ts";
import { BENCH_PHASES, startBenchClock } from "./load/plan.ts";
import { DEFAULT_PRICE_FILE, loadPrices, type Price } from "./load/price-file.ts";
import { writeRun } from "./load/results.ts";
import { compareFiles, DEFAULT_NOISE } from "./stats/compare.ts";

/** The whole-number options' bounds and, on the runtimes started here, defaults. */
const NUMBERS = {
  requests: { min: 1, default: 200 },
  concurrency: { min: 1, default: 4 },
  rate: { min: 1 },
  rounds: { min: 1, default: 3 },
  // V8 (node, workerd, deno) optimizes a request's code over its first thousands: after 20 the
  // rounds ran partly unoptimized (node's KV hit over its bare get, one in flight: 2.42× after 20,
  // 2.14× after 1,000, 1.61× after 3,000). A phase's time limit bounds it on a slow runtime.
  warmup: { min: 0, default: 3_000 },
  "time-limit": { min: 1, default: 6_000 },
  staleness: { min: 0, default: 3 },
  cold: { min: 0, default: 0 },
  idle: { min: 0, default: 30 },
  "max-requests": { min: 1 },
  "db-rtt": { min: 0, default: 0 },
} satisfies Record<string, WholeNumber>;
/** On deployments (--target): fewer requests, a cap on them. */
const TARGET_DEFAULTS = { requests: 50, concurrency: 2, warmup: 5, staleness: 1, "max-requests": 3000 };
type TargetDefault = keyof typeof TARGET_DEFAULTS;

const help = (name: TargetDefault) =>
  bounds(
    NUMBERS[name],
    `default ${"default" in NUMBERS[name] ? NUMBERS[name].default : "none"}; targets ${TARGET_DEFAULTS[name]}`,
  );

const USAGE = `npm run bench -- [options]
       npm run bench -- --compare OLD.json NEW.json [--noise PCT]
  --compare         per target and operation, the change of the median p50 and req/s between two
                    runs' bench.json with its 95 % interval; "no significant difference" when the
                    interval holds zero; "within noise" when it lies within ±PCT % (0–100, default 5)
  --target NAME=URL  a deployment already running (repeat for several); without any, the bench
                     starts the runtimes here (--runtimes) over a database of its own
  --requests N      requests per target, operation and round ${help("requests")}
  --concurrency N   requests in flight at once, two cores serving client and servers ${help("concurrency")}
  --rate N          the open model instead: N requests per second per target and operation, each
                    timed from when it was due (a stall counts in every request due meanwhile);
                    --concurrency then only sets how many PATCH chains run side by side ${bounds(NUMBERS.rate)}
  --rounds N        measured rounds; the spread between them is reported ${bounds(NUMBERS.rounds)}
  --warmup N        unmeasured requests per target and operation first ${help("warmup")}
  --operations LIST ${operationNames.join(",")}
                    (default: ${defaultOperations.local.join(",")};
                    targets: ${defaultOperations.targets.join(",")})
  --time-limit MS   no new request in a phase after this long ${bounds(NUMBERS["time-limit"])}
  --staleness N     unlinks per target pair timed for cross-edge staleness, 0: none ${help("staleness")}
  --cold N          first requests after a pause, per target, 0: none ${bounds(NUMBERS.cold)}
  --idle SECONDS    the pause before each of them ${bounds(NUMBERS.idle)}
  --max-requests N  the most requests the run sends, clean-up included ${help("max-requests")}
  --out DIR         where the results go (${OUT_HELP})
  --prices FILE     the price table for the cost per million operations (default bench/prices.json)
  --html FILE       no run: bench.html made again from a saved bench.json, written beside it
 The runtimes started here:
  --runtimes LIST   ${runtimeNames.join(",")} (default: all)
  --db-rtt MS       the Neon endpoint holds each round trip this long, as the edge-to-database
                    distance would, 5–40 at the edge ${bounds(NUMBERS["db-rtt"])}
  --otel            each runtime twice, tracing off and on (RUNTIME+otel, exporting to the
                    OpenTelemetry Collector the bench starts: bash .ci/tools builds it); the KV
                    hit's p50 of both side by side, and whether tracing adds at most 10 %
  --pin             the bench's process (load generator, database endpoint) on CPU 0 and every
                    server on the others, so a client and its server never share a core (Linux)
  Database: DATABASE_URL (postgres://…, a scratch schema is used and dropped), else embedded PGlite.
  With PostgreSQL the bench also times the naive write and the local endpoint's overhead over pg.
 Signing in to deployments (one of):
  --token JWT       (or BENCH_TOKEN) one identity for everything; --admin-token (or BENCH_ADMIN_TOKEN)
                    for the admin operation. The operations needing many users are left out.
  --sign-with KEY.pem  mint tokens from this private key (RSA, P-256 or Ed25519) whose public key
                    the deployments' JWKS holds; --kid ID, --iss ISSUER, --aud AUDIENCE as they
                    check them; --tenant-claim (default tid) and --role-claim (default role)
 The bench beside autocannon on the same target: npm run bench:cross-check -- --help`;

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
    otel: { type: "boolean", default: false },
    pin: { type: "boolean", default: false },
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
  const onTargets = targets.length > 0;
  const number = (name: keyof typeof NUMBERS, fallback?: number) =>
    wholeNumber(name, values[name], NUMBERS[name], fallback);
  const byTarget = (name: TargetDefault, local?: number) => number(name, onTargets ? TARGET_DEFAULTS[name] : local);
  const picked = values.operations;
  if (values.idle !== undefined && number("cold") === 0) {
    throw new UsageError("--idle is the pause before each of --cold's requests: give --cold N too");
  }
  return {
    targets,
    requests: byTarget("requests", NUMBERS.requests.default),
    concurrency: byTarget("concurrency", NUMBERS.concurrency.default),
    ratePerSecond: values.rate === undefined ? undefined : number("rate"),
    rounds: number("rounds"),
    warmup: byTarget("warmup", NUMBERS.warmup.default),
    runtimes: selection<RuntimeName>("runtimes", values.runtimes, runtimeNames),
    operations:
      picked === undefined
        ? defaultOperations[targets.length > 0 ? "targets" : "local"]
        : selection<OperationName>("operations", picked, operationNames),
    explicitOperations: picked !== undefined,
    timeLimitMs: number("time-limit"),
    dbRttMs: number("db-rtt"),
    otel: values.otel === true,
    pin: values.pin === true,
    staleness: byTarget("staleness", NUMBERS.staleness.default),
    cold: number("cold"),
    idleSeconds: number("idle"),
    maxRequests: byTarget("max-requests", Number.POSITIVE_INFINITY),
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
  if (values.runtimes !== undefined || values["db-rtt"] !== undefined || opts.otel || opts.pin) {
    throw new UsageError(
      "--runtimes, --db-rtt, --otel and --pin are for the runtimes the bench starts, not for --target",
    );
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
  const args = process.argv.slice(2);
  const compareAt = args.indexOf("--compare");
  if (compareAt >= 0) {
    const [before, after] = args.slice(compareAt + 1, compareAt + 3);
    if (!before || !after) throw new UsageError("--compare needs two files: OLD.json NEW.json");
    const noiseAt = args.indexOf("--noise");
    const noise = noiseAt < 0 ? DEFAULT_NOISE : noiseShare(args[noiseAt + 1]);
    // A run's option beside --compare would change nothing: refused rather than ignored.
    const used = new Set([compareAt, compareAt + 1, compareAt + 2, ...(noiseAt < 0 ? [] : [noiseAt, noiseAt + 1])]);
    const extra = args.find((_, i) => !used.has(i));
    if (extra !== undefined) throw new UsageError(`--compare takes two files and --noise PCT only, not ${extra}`);
    process.stdout.write(await compareFiles(before, after, noise));
    return 0;
  }
  const values = parse();
  if (values.html !== undefined) {
    // The page is made from the saved run alone and written beside it: any other option would be ignored.
    const extra = optionNames(args).find((name) => name !== "--html");
    if (extra !== undefined) throw new UsageError(`--html makes the page from a saved run alone, without ${extra}`);
    progress(`Written: ${await writeHtmlFromJson(values.html)}`);
    return 0;
  }
  const priceFile = values.prices ?? DEFAULT_PRICE_FILE;
  const table = await loadPrices(priceFile);
  const opts = options(values, { file: relative(process.cwd(), priceFile), table });
  // The bench signs its own tokens for the runtimes it starts: signing-in options would be ignored.
  const signIn = optionNames(args).find((name) => SIGN_IN_OPTIONS.includes(name));
  if (opts.targets.length === 0 && signIn)
    throw new UsageError(`${signIn} signs in to deployments: only with --target`);
  const command = recordedCommand(args);
  const warnings = benchWarnings(opts).map(warningLine);
  for (const warning of warnings) progress(warning);
  if (opts.targets.length === 0) {
    if (opts.otel && !collectorInstalled()) throw new UsageError(`--otel: ${COLLECTOR_MISSING}`);
    const pin = opts.pin ? pinning() : undefined;
    const budget = new RequestBudget(opts.maxRequests);
    const clock = startBenchClock(opts, opts.runtimes.length * (opts.otel ? 2 : 1), "local");
    clock.begin(BENCH_PHASES.start);
    const outcome = await runOnLocalRuntimes({ ...opts, pin, clock }, budget);
    await writeRun({ ...outcome, notes: [...warnings, ...outcome.notes] }, opts, command, budget.sent);
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
  await writeRun(
    { ...outcome, notes: [...warnings, ...outcome.notes] },
    run,
    command,
    budgets.run.sent + budgets.cleanup.sent,
  );
  return 0;
}

await runBenchCommand(USAGE, main);
