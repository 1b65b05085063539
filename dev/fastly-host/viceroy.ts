// Serving the service with Viceroy, Fastly's local Compute runtime, when it is installed: this
// run's [local_server] is written to a temporary manifest (secrets passed through the environment,
// never written to disk) and Viceroy serves bin/main.wasm with it.
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "smol-toml";
import { freePort } from "../support/free-port.ts";
import type { LocalServerConfig } from "./manifest.ts";

const READY_TIMEOUT_MS = 60_000;

interface ViceroyOptions {
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
  const secretEnv: Record<string, string> = {};
  const backends = Object.fromEntries(
    Object.entries(config.backends).map(([name, { url, overrideHost }]) => [
      name,
      { url, ...(overrideHost ? { override_host: overrideHost } : {}) },
    ]),
  );
  const kvStores = Object.fromEntries(
    Object.entries(config.kvStores).map(([name, seeds]) => [
      name,
      seeds.map(({ key, data, metadata }) => ({ key, data, ...(metadata ? { metadata } : {}) })),
    ]),
  );
  const configStores = Object.fromEntries(
    Object.entries(config.configStores).map(([name, contents]) => [name, { format: "inline-toml", contents }]),
  );
  const secretStores = Object.fromEntries(
    Object.entries(config.secretStores).map(([name, secrets]) => [
      name,
      Object.entries(secrets).map(([key, value], i) => {
        const variable = `VICEROY_SECRET_${name.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_${i}`;
        secretEnv[variable] = value;
        return { key, env: variable };
      }),
    ]),
  );
  const manifest = {
    manifest_version: 3,
    name: "local",
    language: "javascript",
    local_server: { backends, kv_stores: kvStores, config_stores: configStores, secret_stores: secretStores },
  };
  return { toml: `${stringify(manifest)}\n`, secretEnv };
}

async function untilServing(url: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const answered = await fetch(`${url}/healthz`).then(
      (r) => r.body?.cancel().then(() => true) ?? true,
      () => false,
    );
    if (answered) return;
    if (Date.now() > deadline) throw new Error(`viceroy did not answer on ${url} within ${READY_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
