// Deployments already running, given by URL (`--target NAME=URL`): what the bench needs to know
// of them before it sends any load. Each answers /healthz with the runtime it runs on, and its
// Server-Timing says whether the split can be measured there.
import { commandLine, UsageError } from "../lib/cli.ts";
import { platformFromHeaders } from "./platform.ts";
import { causeOf } from "./request.ts";
import type { Target } from "./rounds.ts";
import type { TargetStatus } from "./summary.ts";

const TARGET_NAME = /^[A-Za-z0-9_-]{1,20}$/;

/** `NAME=URL` per flag; names unique, URLs http(s) with nothing after the origin but a path prefix. */
export function parseTargets(flags: readonly string[]): Target[] {
  const targets = flags.map((flag): Target => {
    const at = flag.indexOf("=");
    const [name, url] = at < 0 ? [flag, ""] : [flag.slice(0, at), flag.slice(at + 1)];
    if (!TARGET_NAME.test(name))
      throw new UsageError(`--target ${flag}: NAME=URL, NAME of [A-Za-z0-9_-], 1-20 characters`);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new UsageError(`--target ${name}: "${url}" is not a URL`);
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
      throw new UsageError(`--target ${name}: http:// or https:// only`);
    if (parsed.search || parsed.hash) throw new UsageError(`--target ${name}: no query or fragment`);
    return { name, url: parsed.origin };
  });
  const names = targets.map((t) => t.name);
  const repeated = names.find((name, i) => names.indexOf(name) !== i);
  if (repeated) throw new UsageError(`--target ${repeated} is given twice`);
  return targets;
}

/**
 * Whether the target answers /healthz, the runtime it names, the platform its headers name, and
 * whether it sends Server-Timing.
 */
export async function checkTarget(target: Target, send: typeof fetch): Promise<TargetStatus> {
  try {
    const response = await send(new URL("/healthz", target.url));
    const body = (await response.json().catch(() => ({}))) as { runtime?: unknown };
    const platform = platformFromHeaders(response.headers);
    if (response.status !== 200)
      return { target: target.name, platform, available: false, reason: `/healthz: HTTP ${response.status}` };
    return {
      target: target.name,
      platform,
      available: true,
      runtime: typeof body.runtime === "string" ? body.runtime : undefined,
      serverTiming: response.headers.has("server-timing"),
    };
  } catch (error) {
    return { target: target.name, available: false, reason: `/healthz: ${causeOf(error)}` };
  }
}

/** The command line as recorded in the results: tokens never are. */
export function recordedCommand(argv: readonly string[]): string {
  const secret = new Set(["--token", "--admin-token"]);
  const args = argv.map((arg, i) => {
    if (secret.has(argv[i - 1] ?? "")) return "…";
    const [flag] = arg.split("=", 1);
    return secret.has(flag!) && arg.includes("=") ? `${flag}=…` : arg;
  });
  return commandLine("bench", args);
}
