// The worker as `wrangler deploy` would upload it (a dry run: uploading needs an account), and that
// very file in workerd: with an unusable setting it answers 500 misconfigured and logs it.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROBLEM_CONTENT_TYPE } from "../../core/http/problem.ts";
import { WORKER_OUTFILE } from "../../dev/build/cloudflare.ts";
import { ROOT } from "../../dev/build/fastly.ts";
import { workerCompatibility } from "../../dev/launchers/cloudflare.ts";
import { TEST_AUTH_SECRET, TEST_AUTH_SETTINGS } from "../../dev/support/tokens.ts";
import { type Exit, runToExit } from "./processes.ts";
import { UNIMPORTABLE_JWKS } from "./refusals.ts";

const WRANGLER = join(ROOT, "node_modules", ".bin", "wrangler");
// Nothing leaves this machine: no metrics, and any request wrangler tries goes to a closed local port.
const OFFLINE = {
  WRANGLER_SEND_METRICS: "false",
  CI: "true",
  HTTPS_PROXY: "http://127.0.0.1:9",
  HTTP_PROXY: "http://127.0.0.1:9",
};

let outdir: string;
let dryRun: Exit;

beforeAll(async () => {
  outdir = await mkdtemp(join(tmpdir(), "wrangler-dry-run-"));
  dryRun = await runToExit(WRANGLER, ["deploy", "--dry-run", "--outdir", outdir], OFFLINE, ROOT);
}, 300_000);
afterAll(async () => {
  await rm(outdir, { recursive: true, force: true });
});

describe("wrangler deploy --dry-run", () => {
  it("builds the worker and lists its bindings without uploading", async () => {
    expect(dryRun.code, dryRun.stdout + dryRun.stderr).toBe(0);
    expect(dryRun.stdout).toMatch(/env\.LINKS \(\w+\)\s+KV Namespace/);
    // Every trace's resource names the version (edge/cloudflare/index.ts).
    expect(dryRun.stdout).toMatch(/env\.CF_VERSION_METADATA\s+Worker Version Metadata/);
    expect(dryRun.stdout).toContain("--dry-run: exiting now.");
  });

  it("uploads the bundle the build wrote, as is (no second bundling)", async () => {
    expect(await readFile(join(outdir, "worker.js"), "utf8")).toBe(await readFile(WORKER_OUTFILE, "utf8"));
  });
});

// A database that is not Neon's has no endpoint to guess: NEON_FETCH_ENDPOINT must name one.
// Each row's KV namespaces are LINKS unless it names others.
const UNUSABLE: [setting: string, bindings: Record<string, string>, secret: string, kvNamespaces?: string[]][] = [
  [
    "AUTH_SECRET",
    { AUTH_SECRET: "short-secret-value", DATABASE_URL: "postgres://u:p@127.0.0.1:9/db" },
    "short-secret-value",
  ],
  [
    "NEON_FETCH_ENDPOINT",
    { ...TEST_AUTH_SETTINGS, DATABASE_URL: "postgres://app:hunter2@127.0.0.1:5432/app" },
    "hunter2",
  ],
  // Found only by importing the key, which Workers do before the first request's answer.
  [
    "AUTH_JWKS",
    {
      ...UNIMPORTABLE_JWKS,
      DATABASE_URL: "postgres://u:p@127.0.0.1:9/db",
      NEON_FETCH_ENDPOINT: "http://127.0.0.1:9/sql",
    },
    UNIMPORTABLE_JWKS.AUTH_JWKS,
  ],
  // The development key alone is no deployment.
  [
    "AUTH_SECRET_SCOPE",
    { AUTH_SECRET: TEST_AUTH_SECRET, DATABASE_URL: "postgres://u:p@127.0.0.1:9/db" },
    TEST_AUTH_SECRET,
  ],
  // A wrangler environment ([env.<name>]) inherits no [[kv_namespaces]]: deployed to one that
  // declares none, the worker has no LINKS, and every KV call would fail unseen, as a miss.
  [
    "LINKS",
    {
      ...TEST_AUTH_SETTINGS,
      DATABASE_URL: "postgres://app:hunter2@127.0.0.1:9/app",
      NEON_FETCH_ENDPOINT: "http://127.0.0.1:9/sql",
    },
    "hunter2",
    [],
  ],
];

describe.each(UNUSABLE)("the uploaded worker with an unusable %s", (setting, bindings, secret, kvNamespaces) => {
  let mf: Miniflare;
  let logs = "";
  const collect = (stream: Readable) => stream.on("data", (chunk: Buffer) => (logs += chunk.toString()));

  beforeAll(async () => {
    const compatibility = await workerCompatibility();
    mf = new Miniflare({
      modules: [{ type: "ESModule", path: "worker.js", contents: await readFile(join(outdir, "worker.js"), "utf8") }],
      compatibilityDate: compatibility.date,
      compatibilityFlags: compatibility.flags,
      kvNamespaces: kvNamespaces ?? ["LINKS"],
      bindings,
      handleRuntimeStdio: (stdout: Readable, stderr: Readable) => {
        collect(stdout);
        collect(stderr);
      },
    });
    await mf.ready;
  }, 120_000);
  afterAll(async () => {
    await mf?.dispose();
  });

  it("answers every request, /healthz too, with 500 misconfigured naming the setting, and logs it", async () => {
    for (const path of ["/healthz", "/v1/me/links"]) {
      const response = await mf.dispatchFetch(`http://localhost${path}`);
      expect(response.status).toBe(500);
      expect(response.headers.get("content-type")).toBe(PROBLEM_CONTENT_TYPE);
      const problem = (await response.json()) as Record<string, unknown>;
      expect(problem).toMatchObject({ status: 500, code: "misconfigured", setting });
      expect(JSON.stringify(problem)).not.toContain(secret);
    }
    await expect.poll(() => logs).toMatch(new RegExp(`"event":"misconfigured".*"setting":"${setting}"`));
    expect(logs).not.toContain(secret);
  });
});
