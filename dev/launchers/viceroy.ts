// Viceroy, Fastly's local Compute runtime, serving a wasm with a fastly.toml: found on PATH or
// where `cargo install` puts it, started on the port asked for (0: one it picks), and stopped.
import { accessSync, constants, mkdtempSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { inheritedEnvironment, type ServerLog, serveFromFolder, spawnServer } from "./child-server.ts";

export const VICEROY_VERSION = "0.20.1";
export const VICEROY_INSTALL = `cargo install --locked viceroy --version ${VICEROY_VERSION}`;
export const VICEROY_MISSING = `viceroy (Fastly's local runtime) is not installed: ${VICEROY_INSTALL}`;

/**
 * Only the line saying where it listens (printed at INFO) and errors: Viceroy's per-request INFO
 * lines would cost every request a write, and its warnings name the backends it found down at
 * start (the jwks backend of a run without an identity provider always is).
 */
const RUST_LOG = "viceroy_lib::service=info,viceroy=error";
const LISTENING = /Listening on (http:\/\/\S+)/;

/** The viceroy executable: on PATH, else in cargo's install folder; undefined when neither has it. */
export function findViceroy(): string | undefined {
  const dirs = [...(process.env.PATH ?? "").split(delimiter).filter(Boolean), join(homedir(), ".cargo", "bin")];
  return dirs.map((dir) => join(dir, "viceroy")).find(isExecutable);
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

interface ViceroyRun {
  wasmPath: string;
  /** The fastly.toml to serve with: its [local_server] is all Viceroy reads of it. */
  manifest: string;
  /** Variables Viceroy's environment adds (the secrets its manifest reads with `env`). */
  env: Record<string, string>;
  port: number;
  log?: ServerLog;
}

/** `viceroy serve --addr 127.0.0.1:<port> -C <manifest> <wasm>`, resolved once it listens. */
export async function startViceroy({ wasmPath, manifest, env, port, log }: ViceroyRun) {
  const executable = findViceroy();
  if (!executable) throw new Error(VICEROY_MISSING);
  // Written for this run only, removed when it stops; it holds no secret values.
  const dir = mkdtempSync(join(tmpdir(), "viceroy-"));
  return serveFromFolder(dir, () => {
    const manifestPath = join(dir, "fastly.toml");
    writeFileSync(manifestPath, manifest);
    return spawnServer({
      name: "viceroy",
      command: executable,
      args: ["serve", "--addr", `127.0.0.1:${port}`, "-C", manifestPath, wasmPath],
      env: { ...inheritedEnvironment(), ...env, RUST_LOG },
      log,
      listeningUrl: (line) => LISTENING.exec(line)?.[1],
    });
  });
}
