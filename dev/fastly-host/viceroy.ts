// Serving the service with Viceroy, Fastly's local Compute runtime, when it is installed: this
// run's [local_server] is written to a temporary manifest (secrets passed through the environment,
// never written to disk) and Viceroy serves bin/main.wasm with it.
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LocalServerConfig } from "./manifest.ts";

const READY_TIMEOUT_MS = 60_000;

export interface ViceroyOptions {
  executable: string;
  wasmPath: string;
  config: LocalServerConfig;
  port: number;
}

export async function startViceroy({ executable, wasmPath, config, port }: ViceroyOptions) {
  const dir = await mkdtemp(join(tmpdir(), "viceroy-"));
  const { toml, secretEnv } = localServerToml(config);
  const manifest = join(dir, "fastly.toml");
  await writeFile(manifest, toml);
  const address = `127.0.0.1:${port || (await freePort())}`;
  const child = spawn(executable, ["--addr", address, "-C", manifest, wasmPath], {
    env: { ...process.env, ...secretEnv },
    stdio: ["ignore", "inherit", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
    process.stderr.write(chunk);
  });
  const exited = new Promise<never>((_, reject) =>
    child.once("exit", (code) => reject(new Error(`viceroy exited (${code}) before serving: ${stderr}`))),
  );
  const stop = async () => {
    if (child.exitCode === null) {
      const gone = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await gone;
    }
    await rm(dir, { recursive: true, force: true });
  };
  const url = `http://${address}`;
  try {
    await Promise.race([untilServing(url), exited]);
  } catch (error) {
    await stop();
    throw error;
  }
  exited.catch(() => {});
  return { url, close: stop };
}

/** fastly.toml's [local_server] for `config`; each secret is read from an environment variable. */
export function localServerToml(config: LocalServerConfig): { toml: string; secretEnv: Record<string, string> } {
  const lines = ['manifest_version = 3', 'name = "local"', 'language = "javascript"', "", "[local_server]"];
  const secretEnv: Record<string, string> = {};
  for (const [name, backend] of Object.entries(config.backends)) {
    lines.push(`[local_server.backends.${key(name)}]`, `url = ${str(backend.url)}`);
    if (backend.overrideHost) lines.push(`override_host = ${str(backend.overrideHost)}`);
  }
  lines.push("[local_server.kv_stores]");
  for (const [name, seeds] of Object.entries(config.kvStores)) {
    const items = seeds.map((s) => `{ key = ${str(s.key)}, data = ${str(s.data)}${s.metadata ? `, metadata = ${str(s.metadata)}` : ""} }`);
    lines.push(`${key(name)} = [${items.join(", ")}]`);
  }
  for (const [name, contents] of Object.entries(config.configStores)) {
    lines.push(`[local_server.config_stores.${key(name)}]`, 'format = "inline-toml"', `[local_server.config_stores.${key(name)}.contents]`);
    for (const [k, v] of Object.entries(contents)) lines.push(`${key(k)} = ${str(v)}`);
  }
  lines.push("[local_server.secret_stores]");
  for (const [name, secrets] of Object.entries(config.secretStores)) {
    const items = Object.entries(secrets).map(([k, v], i) => {
      const variable = `VICEROY_SECRET_${name.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_${i}`;
      secretEnv[variable] = v;
      return `{ key = ${str(k)}, env = ${str(variable)} }`;
    });
    lines.push(`${key(name)} = [${items.join(", ")}]`);
  }
  return { toml: `${lines.join("\n")}\n`, secretEnv };
}

// A JSON string is a TOML basic string for everything these values hold.
const str = (value: string) => JSON.stringify(value);
const key = (name: string) => (/^[A-Za-z0-9_-]+$/.test(name) ? name : str(name));

async function untilServing(url: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const answered = await fetch(`${url}/healthz`).then((r) => r.body?.cancel().then(() => true) ?? true, () => false);
    if (answered) return;
    if (Date.now() > deadline) throw new Error(`viceroy did not answer on ${url} within ${READY_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
