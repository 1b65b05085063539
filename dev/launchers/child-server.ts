// A server in a process of its own (deno, Viceroy, the Node release): started, its log routed,
// and its URL taken from the line it prints once it listens.
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { RawSettings } from "../../core/settings/settings.ts";

// Viceroy compiles the 17 MB wasm with Cranelift before it listens: about 50 s on two busy cores.
export const STARTUP_TIMEOUT_MS = 240_000;
/** What a suite's start-up hook waits: PGlite and the first wasm build come before the launcher's own wait. */
export const SUITE_STARTUP_TIMEOUT_MS = STARTUP_TIMEOUT_MS + 60_000;
/** How often a log file is read for the "listening" line while the server starts. */
const LOG_FILE_POLL_MS = 20;

/**
 * Where the server's log goes: "print" reads its stdout (the request log) line by line and prints
 * it, its stderr going straight to this process's (npm start, tests); "file" writes both to a file
 * that nothing reads while the server runs, deleted when it closes (a server that fails to start
 * has the file's end in its error). The benchmark uses "file": a pipe read by the load generator's own process
 * cost deno ~45 µs of every request (the write wakes the reader; ~3 µs into a file) and the
 * generator its CPU, a cost of this machine's setup rather than of the code measured.
 */
export type ServerLog = "print" | "file";

export interface ServerCommand {
  /** What the server is, for the error when it does not start ("deno runtime"). */
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  log?: ServerLog;
  /** The URL a line of the server's stdout says it listens on, or undefined. */
  listeningUrl(line: string): string | undefined;
}

export interface ChildServer {
  url: string;
  /** Where the log is written with "file", until close deletes it. */
  logFile?: string;
  close(): Promise<void>;
}

/** This process's environment less the variables `except` lists, as a child process takes it. */
export function inheritedEnvironment(except: readonly string[] = []): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env))
    if (value !== undefined && !except.includes(name)) env[name] = value;
  return env;
}

/**
 * This process's environment less every variable `names` lists, then those of them `settings`
 * sets: a child's settings come from `settings` only, never leak in from this process's.
 */
export function environmentWith(settings: RawSettings, names: readonly string[]): Record<string, string> {
  const env = inheritedEnvironment(names);
  for (const name of names) {
    const value = settings[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** The URL in a `{"event":"listening","url":…}` line (the Node and Deno entries print one), or undefined. */
export function listeningEventUrl(line: string): string | undefined {
  try {
    const event = JSON.parse(line) as { event?: string; url?: string };
    return event.event === "listening" ? event.url : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A server whose files (a build, a manifest) live in `dir`, a folder of its own: `start` writes
 * them and starts it; the folder is removed when the server closes, or at once if it does not start.
 */
export async function serveFromFolder<Server extends { close(): Promise<void> }>(
  dir: string,
  start: () => Promise<Server>,
): Promise<Server> {
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    const server = await start();
    return { ...server, close: () => server.close().finally(remove) };
  } catch (error) {
    remove();
    throw error;
  }
}

/**
 * Servers still running when this process exits, each then sent SIGTERM. A child outlives its
 * parent, keeping its port with nothing behind it, and some exits never close them: a stop while
 * one is still starting (npm start knows its servers only once all have started), a second signal,
 * a stop past its grace.
 */
const running = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of running) child.kill("SIGTERM");
});

/** Runs the server and resolves with the URL of the first "listening" line it prints. */
export function spawnServer({ name, command, args, env, cwd, log = "print", listeningUrl }: ServerCommand) {
  const logDir = log === "file" ? mkdtempSync(join(tmpdir(), "server-log-")) : undefined;
  const logFile = logDir && join(logDir, "stdout.log");
  const fd = logFile ? openSync(logFile, "w") : undefined;
  const child = spawn(command, args, { cwd, env, stdio: ["ignore", fd ?? "pipe", fd ?? "inherit"] });
  if (fd !== undefined) closeSync(fd); // the child holds its own copy
  running.add(child);
  const exited = new Promise<void>((resolve) =>
    child.once("exit", () => {
      running.delete(child);
      resolve();
    }),
  );
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
    if (logDir) rmSync(logDir, { recursive: true, force: true });
  };

  return new Promise<ChildServer>((resolve, reject) => {
    let stopWatching = () => {};
    const fail = (reason: string) => {
      clearTimeout(timer);
      stopWatching();
      const logged = logFile ? `\n${readFileSync(logFile, "utf8").slice(-2000)}` : "";
      void close().then(() => reject(new Error(`${name} did not start: ${reason}${logged}`)));
    };
    const timer = setTimeout(() => fail("timed out"), STARTUP_TIMEOUT_MS);
    child.once("error", (error) => fail(error.message));
    const onExit = (code: number | null) => fail(`exited with code ${code}`);
    child.once("exit", onExit);
    const listening = (url: string) => {
      clearTimeout(timer);
      child.off("exit", onExit);
      resolve({ url, ...(logFile ? { logFile } : {}), close });
    };
    stopWatching = logFile
      ? watchLogFile(logFile, listeningUrl, listening)
      : watchStdout(child.stdout!, listeningUrl, listening);
  });
}

/** Prints the server's log as it comes; its first "listening" line says where it listens. */
function watchStdout(
  stdout: NodeJS.ReadableStream,
  listeningUrl: (line: string) => string | undefined,
  listening: (url: string) => void,
): () => void {
  const lines = createInterface({ input: stdout });
  let started = false;
  lines.on("line", (line) => {
    const url = started ? undefined : listeningUrl(line);
    if (!url) return void console.log(line);
    started = true;
    listening(url);
  });
  return () => lines.close();
}

/** Reads the log file until its "listening" line is there, then leaves it alone. */
function watchLogFile(
  path: string,
  listeningUrl: (line: string) => string | undefined,
  listening: (url: string) => void,
): () => void {
  const poll = setInterval(() => {
    const url = readFileSync(path, "utf8").split("\n").map(listeningUrl).find(Boolean);
    if (!url) return;
    clearInterval(poll);
    listening(url);
  }, LOG_FILE_POLL_MS);
  return () => clearInterval(poll);
}
