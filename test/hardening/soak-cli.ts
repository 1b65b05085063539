// The long soak: `tsx test/hardening/soak-cli.ts [--seconds 300] [--concurrency 16] [--seed 1]`.
// Runs against a fresh database on the PostgreSQL of TEST_POSTGRES_URL (default the local one),
// through a loopback endpoint only; prints the report and exits 1 when a promise broke.
import { parseCommandLine } from "../../dev/support/command-line.ts";

const MAX_SECONDS = 3_600;
const MAX_CONCURRENCY = 64;

function wholeNumber(name: string, value: string | undefined, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1 || number > max)
    throw new Error(`--${name} must be a whole number from 1 to ${max}`);
  return number;
}

const USAGE = `Usage: npm run soak [-- options]

Runs a mixed concurrent load against a fresh database on the PostgreSQL of TEST_POSTGRES_URL
(default postgres://postgres@127.0.0.1:5432/postgres), then checks every invariant.

Options:
  --seconds N       how long (default 300, at most ${MAX_SECONDS})
  --concurrency N   workers (default 16, at most ${MAX_CONCURRENCY})
  --seed N          seeds the operation mix (default 1)
  -h, --help        print this and exit`;

const values = parseCommandLine(USAGE, {
  seconds: { type: "string" },
  concurrency: { type: "string" },
  seed: { type: "string" },
});
const seconds = wholeNumber("seconds", values.seconds, 300, MAX_SECONDS);
const concurrency = wholeNumber("concurrency", values.concurrency, 16, MAX_CONCURRENCY);
const seed = wholeNumber("seed", values.seed, 1, 2 ** 31);

process.stderr.write(
  `soak: ${seconds} s, ${concurrency} workers, seed ${seed}, on PostgreSQL through a loopback endpoint\n`,
);
// Loaded only now: the harness checks PostgreSQL as it loads, which --help must not do.
const { startHarness } = await import("../support/harness.ts");
const { runSoak } = await import("./soak.ts");
const harness = await startHarness({ backend: "postgres", poolSize: concurrency + 2 });
try {
  const report = await runSoak(harness, { durationMs: seconds * 1000, concurrency, seed });
  const perSecond = Math.round((report.operations / report.durationMs) * 1000);
  console.log(JSON.stringify({ ...report, operationsPerSecond: perSecond }, null, 2));
  process.exitCode = report.violations.length === 0 ? 0 : 1;
} finally {
  await harness.close();
}
