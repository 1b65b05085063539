// Command lines shared by the project's commands (start, migrate, soak): `--help` prints the usage
// and exits 0 before anything is opened or started; a wrong option prints one line and the usage.
import { type ParseArgsConfig, parseArgs } from "node:util";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** The parsed options, or (for --help and mistakes) the usage and an exit. */
export function parseCommandLine<T extends Options>(usage: string, options: T, argv = process.argv.slice(2)) {
  const parse = () =>
    parseArgs({ args: argv, options: { ...options, help: { type: "boolean", short: "h" } }, strict: true });
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse();
  } catch (error) {
    process.stderr.write(`${usageMistake(error)}\n\n${usage.trimEnd()}\n`);
    process.exit(2);
  }
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(`${usage.trimEnd()}\n`);
    process.exit(0);
  }
  return parsed.values as ReturnType<typeof parseArgs<{ options: T }>>["values"];
}

/** Node's words for a mistake on the command line, on one line (for a value starting with a dash it writes three). */
export const usageMistake = (error: unknown) => (error as Error).message.replace(/\s*\n\s*/g, " ");

/**
 * A port option: a whole number 0–65535 in digits (0: pick a free one), as PORT is read; anything
 * else stops with one line (Number() alone would take "0x1F90", "8e3" or " 80" for a port).
 */
export function portOption(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === "") return fallback;
  const port = /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    process.stderr.write(`${name} must be a port number from 0 to 65535, not "${value}"\n`);
    process.exit(2);
  }
  return port;
}
