// `npm run bench:cross-check`: the bench's load generator beside autocannon on the same target,
// operation, requests and connections (bench/load/cross-check.ts): do their throughput and p50
// agree within 15 %? On the node runtime started here, or on a deployment given by URL.
import { benchOptions, positiveInt, progress, runBenchCommand, UsageError } from "./lib/cli.ts";
import { givenTokens } from "./lib/tokens.ts";
import { AGREEMENT, crossCheckText } from "./load/cross-check.ts";
import { crossCheckDeployment, crossCheckLocalNode } from "./load/cross-check-run.ts";
import { parseTargets } from "./load/deployments.ts";
import { type OperationName, operations } from "./load/operations.ts";

const CHECKED: OperationName[] = ["link-hit", "link-strong"];

const USAGE = `npm run bench:cross-check -- [options]
  --target NAME=URL  a deployment already running; without it, the node runtime is started here
  --token JWT        (or BENCH_TOKEN) for --target
  --operation NAME   ${CHECKED.join(" or ")} (default link-hit)
  --db-rtt MS        the node runtime's database round trip, held this long (default 0)
  --requests N       requests per client and turn (default 500)
  --concurrency N    connections of each client (default 4; the bench's)
  --turns N          turns of each client; the medians are compared (default 3)
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
    dbRttMs: positiveInt("db-rtt", values["db-rtt"], 0, 0),
    requests: positiveInt("requests", values.requests, 500),
    concurrency: positiveInt("concurrency", values.concurrency, 4),
    turns: positiveInt("turns", values.turns, 3),
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
