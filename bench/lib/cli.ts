// What the bench's commands (bench, race, bench:sync, bench:migration) share: their options
// (--help and a wrong option answered as every command of the project answers them, --out, whole
// numbers within stated bounds), a usage error as one line and the usage (exit 2), how a run was
// started, where results go.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ParseArgsConfig } from "node:util";
import { parseCommandLine } from "../../dev/support/command-line.ts";

/** Where a run writes unless told otherwise: ignored by git, so a run of one's own never touches the committed results. */
export const DEFAULT_RESULTS_DIR = fileURLToPath(new URL("../out", import.meta.url));

/** The committed results, which docs/benchmarks.md quotes: written only when `--out` names them. */
export const COMMITTED_RESULTS_DIR = "bench/results";

/** What `--out DIR` does, as every command's usage says it. */
export const OUT_HELP = `default bench/out, which git ignores; ${COMMITTED_RESULTS_DIR}: the committed ones`;

const OUT_OPTION = { out: { type: "string", default: DEFAULT_RESULTS_DIR } } as const;

/** A command's options and `--out DIR`; for --help or a wrong option, the usage and an exit. */
export function benchOptions<T extends NonNullable<ParseArgsConfig["options"]>>(usage: string, options: T) {
  return parseCommandLine(usage, { ...options, ...OUT_OPTION });
}

/**
 * Runs a command's `main`: its exit code; for a usage error the one line and the usage, for an
 * input file the user edits the one line naming the file and field (exit 2); for a database it
 * cannot use, the one line saying why (exit 1).
 */
export async function runBenchCommand(usage: string, main: () => Promise<number> | Promise<void>): Promise<void> {
  try {
    process.exitCode = (await main()) ?? 0;
  } catch (error) {
    if (error instanceof InputFileError || error instanceof SetupError) console.error(error.message);
    else console.error(error instanceof UsageError ? `${error.message}\n\n${usage}` : error);
    process.exitCode = error instanceof UsageError || error instanceof InputFileError ? 2 : 1;
  }
}

/** A whole-number option: its least and greatest value and its default, as --help states them and parsing holds them. */
export interface WholeNumber {
  min: number;
  max?: number;
  default?: number;
}

const figure = (n: number) => n.toLocaleString("en-US");

/** "2–32", "≥ 0": the values an option takes. */
const range = ({ min, max }: WholeNumber) => (max === undefined ? `≥ ${figure(min)}` : `${figure(min)}–${figure(max)}`);

/**
 * An option's bounds as its --help line gives them: "(2–32, default 8)", "(≥ 0, default 3)";
 * `defaultText` where the default depends on something else ("default 200; targets 50").
 */
export function bounds(option: WholeNumber, defaultText?: string): string {
  const fallback = option.default;
  return `(${range(option)}, ${defaultText ?? (fallback === undefined ? "no default" : `default ${figure(fallback)}`)})`;
}

/** A whole number in digits within the option's bounds (`fallback` when not given), or a usage error naming the option. */
export function wholeNumber(
  name: string,
  value: string | undefined,
  option: WholeNumber,
  fallback = option.default,
): number {
  if (value === undefined && fallback !== undefined) return fallback;
  // Digits only: Number() alone takes "0x10", "1e3" or " 5", figures the user never wrote.
  const number = value !== undefined && /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
  const { min, max = Number.POSITIVE_INFINITY } = option;
  if (!Number.isSafeInteger(number) || number < min || number > max) {
    throw new UsageError(`--${name} must be a whole number ${range(option)}`);
  }
  return number;
}

/** A measuring script's `--runs N`: how many times it measures (out of bounds, a UsageError). */
export function runsOption(usage: string, option: WholeNumber): number {
  return wholeNumber("runs", parseCommandLine(usage, { runs: { type: "string" } }).runs, option);
}

/** A comma-separated selection checked against what exists. */
export function selection<T extends string>(name: string, value: string | undefined, known: readonly T[]): T[] {
  if (value === undefined) return [...known];
  const picked = value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
  const unknown = picked.filter((item) => !(known as readonly string[]).includes(item));
  if (unknown.length > 0 || picked.length === 0) {
    throw new UsageError(`--${name}: unknown ${unknown.join(", ") || "(empty)"}; choose from ${known.join(", ")}`);
  }
  return picked as T[];
}

export class UsageError extends Error {
  override name = "UsageError";
}

/** A file the user edits holds what the command cannot use: its message names the file and field. */
export class InputFileError extends Error {
  override name = "InputFileError";
}

/** A JSON file the user names (a saved run): its content, or an InputFileError naming the file. */
export async function readJsonFile(file: string): Promise<unknown> {
  const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    throw new InputFileError(`${file}: cannot be read (${error.code ?? error.message})`);
  });
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InputFileError(`${file}: not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
}

/** The options named on a command line (`--name` or `--name=value`), in order. */
export const optionNames = (args: readonly string[]) =>
  args.filter((arg) => arg.startsWith("--")).map((arg) => arg.split("=")[0]!);

/** What the command runs against cannot be used (DATABASE_URL not PostgreSQL's, or not answering): its message says why. */
export class SetupError extends Error {
  override name = "SetupError";
}

/** Writes name → content files into dir; returns their paths. */
export async function writeResults(dir: string, files: Record<string, string>): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const paths = Object.keys(files).map((name) => join(dir, name));
  await Promise.all(Object.entries(files).map(([name, content]) => writeFile(join(dir, name), content)));
  return paths;
}

/** Drops everything written to stdout until the returned function restores it. */
export function muteStdout(): () => void {
  const write = process.stdout.write;
  process.stdout.write = ((...args: unknown[]) => {
    const done = args.find((arg) => typeof arg === "function") as (() => void) | undefined;
    if (done) queueMicrotask(done);
    return true;
  }) as typeof process.stdout.write;
  return () => void (process.stdout.write = write);
}

/** Progress goes to stderr so stdout stays the report. */
export const progress = (line: string) => void process.stderr.write(`${line}\n`);

/** What the machine was, so a reader can weigh the numbers. */
export async function machineInfo() {
  const os = await import("node:os");
  return {
    node: process.versions.node,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? "unknown",
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    loadAverage: os.loadavg().map((value) => Math.round(value * 100) / 100),
  };
}

/** How this run was started, as a results file names it: `npm run <script> -- <arguments>`. */
export const commandLine = (script: string, args: readonly string[] = process.argv.slice(2)) =>
  `npm run ${script}${args.length > 0 ? ` -- ${args.join(" ")}` : ""}`;
