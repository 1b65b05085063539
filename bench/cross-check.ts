// `npm run bench:cross-check`: the bench's load generator beside autocannon on the same target,
// operation, requests and connections (bench/load/cross-check.ts): do their throughput and p50
// agree within 15 %? On the node runtime started here, or on a deployment given by URL.
import {
  benchOptions,
  bounds,
  progress,
  runBenchCommand,
  UsageError,
  type WholeNumber,
  wholeNumber,
} from "./lib/cli.ts";
import { givenTokens } from "./lib/tokens.ts";
import { AGREEMENT, crossCheckText } from "./load/cross-check.ts";
import { crossCheckDeployment, crossCheckLocalNode } from "./load/cross-check-run.ts";
import { parseTargets } from "./load/deployments.ts";
import { type OperationName, operations } from "./load/operations.ts";

const CHECKED: OperationName[] = ["link-hit", "link-strong"];

/** The whole-number options: their bounds and defaults. */
const NUMBERS = {
  "db-rtt": { min: 0, default: 0 },
  requests: { min: 1, default: 500 },
  concurrency: { min: 1, default: 4 },
  turns: { min: 1, default: 3 },
} satisfies Record<string, WholeNumber>;

const USAGE = `npm run bench:cross-check -- [options]
  --target NAME=URL  a deployment already running; without it, the node runtime is started here
  --token JWT        (or BENCH_TOKEN) for --target
  --operation NAME   ${CHECKED.join(" or ")} (default link-hit)
  --db-rtt MS        the node runtime's database round trip, held this long ${bounds(NUMBERS["db-rtt"])}
  --requests N       requests per client and turn ${bounds(NUMBERS.requests)}
  --concurrency N    connections of each client, the bench's by default ${bounds(NUMBERS.concurrency)}
  --turns N          turns of each client; the medians are compared ${bounds(NUMBERS.turns)}
 Exit code 0 when both figures agree within ${AGREEMENT * 100} %, 1 when not.`;

async function main(): Promise<number> {
  const values = benchOptions(USAGE, {
    target: { type: "string" },
    token: { type: "string" },
    operation: { type: "string", default: "link-hit" },
    "db-rtt": { type: "string" },
    requests: { type: "string" },
    concurrency: { type: "string" },
    turns: { type: "string" },
  });
  const operation = values.operation as OperationName;
  if (!CHECKED.includes(operation)) throw new UsageError(`--operation: ${CHECKED.join(" or ")}`);
  const settings = {
    operation,
    dbRttMs: wholeNumber("db-rtt", values["db-rtt"], NUMBERS["db-rtt"]),
    requests: wholeNumber("requests", values.requests, NUMBERS.requests),
    concurrency: wholeNumber("concurrency", values.concurrency, NUMBERS.concurrency),
    turns: wholeNumber("turns", values.turns, NUMBERS.turns),
  };
  progress(`${operations[operation].label}: ${settings.turns} turns of ${settings.requests} requests per client`);
  if (!values.target) {
    const check = await crossCheckLocalNode(settings);
    console.log(crossCheckText("node", check));
    return check.agree ? 0 : 1;
  }
  const token = values.token ?? process.env.BENCH_TOKEN;
  if (!token) throw new UsageError("--target needs --token (or BENCH_TOKEN)");
  const [target] = parseTargets([values.target]);
  const { check, cleanup } = await crossCheckDeployment(settings, target!, givenTokens(token, undefined));
  console.log(crossCheckText(target!.name, check));
  progress(
    `Removed: ${cleanup.unlinked} links${cleanup.failures.length ? `; not: ${cleanup.failures.join(", ")}` : ""}`,
  );
  return check.agree ? 0 : 1;
}

await runBenchCommand(USAGE, main);
