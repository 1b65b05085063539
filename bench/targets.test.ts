// `npm run bench -- --target …` against deployments already running: a node and a deno runtime
// over one database, trusting only a JWKS (no AUTH_SECRET), one of them reached by host name.
// The bench mints its tokens from the private key, measures every operation on both, splits each
// one's time by Server-Timing, times staleness between the two, a cold start, and removes what
// it made. A second run through a counting proxy never sends more than --max-requests.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exportJWK, exportPKCS8, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchRuntime, type RunningRuntime } from "../dev/launchers/index.ts";
import { type LocalStack, startLocalStack } from "../dev/local-stack/stack.ts";
import { refusedPort } from "../dev/support/free-port.ts";
import { bearer } from "../dev/support/tokens.ts";
import { createNeonSql } from "../edge/neon/neon-sql.ts";
import { runScript, type ScriptRun } from "./lib/run-script.ts";
import type { Split as SavedSplit } from "./load/split.ts";

/** As a run written today has it: every part, the limiter's included. */
type Split = Pick<SavedSplit, "timed"> & { meanMs: Required<SavedSplit["meanMs"]> };

interface BenchJson {
  format: string;
  version: number;
  tenant: string;
  requestsSent: number;
  targets: { target: string; available: boolean; runtime?: string; serverTiming?: boolean }[];
  results: {
    target: string;
    operation: string;
    requests: number;
    errors: number;
    load: unknown;
    errorKinds: Record<string, number>;
    split: Split | null;
  }[];
  staleness: { from: string; to: string; samples: number[]; error?: string }[];
  coldStarts: { target: string; samples: number[]; timings: unknown[]; errors: string[] }[];
  cleanup: { unlinked: number; assetsDeleted: number; failures: string[] };
}

const OPERATIONS = ["link-hit", "link-strong", "link", "asset-patch", "document-create"];
const KID = "bench-key";
/** What the deployments are configured with to trust the bench's key, and what its tokens carry. */
const SIGN_IN_SETTINGS = {
  AUTH_ISSUER: "https://idp.bench.test/",
  AUTH_AUDIENCE: "bench-api",
  AUTH_TENANT_CLAIM: "https://idp.bench.test/org",
  AUTH_ROLE_CLAIM: "app_role",
};
const STARTUP_TIMEOUT_MS = 180_000;

/** A plain HTTP proxy to `target` that counts what passes through it. */
async function countingProxy(target: string) {
  let count = 0;
  const server = createServer((req, res) => {
    count++;
    const upstream = httpRequest(
      new URL(req.url ?? "/", target),
      { method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    count: () => count,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("npm run bench against running deployments (node and deno, JWKS sign-in)", () => {
  let stack: LocalStack;
  const running: RunningRuntime[] = [];
  let dir: string;
  let keyFile: string;
  let privateKey: CryptoKey;
  let run: ScriptRun;
  let result: BenchJson;
  const [node, deno] = [() => running[0]!, () => running[1]!];
  const signing = () => [
    "--sign-with",
    keyFile,
    "--kid",
    KID,
    "--iss",
    SIGN_IN_SETTINGS.AUTH_ISSUER,
    "--aud",
    SIGN_IN_SETTINGS.AUTH_AUDIENCE,
    "--tenant-claim",
    SIGN_IN_SETTINGS.AUTH_TENANT_CLAIM,
    "--role-claim",
    SIGN_IN_SETTINGS.AUTH_ROLE_CLAIM,
  ];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "bench-targets-"));
    const pair = await generateKeyPair("ES256", { extractable: true });
    privateKey = pair.privateKey;
    keyFile = join(dir, "key.pem");
    await writeFile(keyFile, await exportPKCS8(pair.privateKey));
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: KID, alg: "ES256", use: "sig" };
    stack = await startLocalStack();
    const env = {
      ...stack.settings,
      AUTH_JWKS: JSON.stringify({ keys: [jwk] }),
      ...SIGN_IN_SETTINGS,
      SERVER_TIMING: "on",
      LINK_SYNC_INTERVAL_SECONDS: "1",
    };
    running.push(await launchRuntime("node", env, { port: 0 }));
    running.push(await launchRuntime("deno", env, { port: 0, log: "file" }));
    // Deno listens on 127.0.0.1; the bench reaches it by name.
    const denoByName = deno().url.replace("127.0.0.1", "localhost");
    const args = [
      ...["--target", `node=${node().url}`, "--target", `deno=${denoByName}`],
      ...signing(),
      ...["--requests", "10", "--rounds", "1", "--warmup", "1", "--concurrency", "2"],
      ...["--staleness", "1", "--cold", "1", "--idle", "1", "--out", join(dir, "out")],
    ];
    run = await runScript("bench/bench.ts", args);
    if (run.code !== 0) throw new Error(`bench exited ${run.code}:\n${run.stderr}`);
    result = JSON.parse(await readFile(join(dir, "out", "bench.json"), "utf8")) as BenchJson;
  }, STARTUP_TIMEOUT_MS + 120_000);

  afterAll(async () => {
    await Promise.allSettled(running.map((runtime) => runtime.close()));
    await stack?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("trusts only the JWKS: a development token is refused, the bench's minted ones are not", async () => {
    const refused = await fetch(new URL("/v1/me/links", node().url), { headers: await bearer() });
    expect(refused.status).toBe(401);
    expect(result.targets).toEqual([
      expect.objectContaining({ target: "node", available: true, runtime: "node", serverTiming: true }),
      expect.objectContaining({ target: "deno", available: true, runtime: "deno", serverTiming: true }),
    ]);
    for (const summary of result.results) expect(summary.errorKinds).toEqual({});
  });

  it("measures every operation on every target, in a versioned report", () => {
    expect(result).toMatchObject({ format: "edge-race-free-bench", version: 4 });
    expect(result.results.map((r) => `${r.target} ${r.operation}`).sort()).toEqual(
      ["node", "deno"].flatMap((target) => OPERATIONS.map((operation) => `${target} ${operation}`)).sort(),
    );
    for (const summary of result.results) expect(summary.requests).toBe(10);
  });

  it("splits each operation's time: client = network + edge, edge = auth + db + kv + app", () => {
    for (const { target, operation, split } of result.results) {
      expect(split, `${target} ${operation}`).not.toBeNull();
      const m = split!.meanMs;
      expect(split!.timed).toBe(10);
      expect(m.network + m.edge).toBeCloseTo(m.client, 6);
      expect(m.auth + m.db + m.kv + m.limit + m.app).toBeCloseTo(m.edge, 6);
      for (const part of ["auth", "db", "kv", "edge", "network"] as const) expect(m[part]).toBeGreaterThanOrEqual(0);
      expect(m.auth).toBeGreaterThan(0);
      if (operation !== "link-hit") expect(m.db, `${target} ${operation} db`).toBeGreaterThan(0);
      // A strong read leaves the KV alone; a lookup reads it, a new link writes its copy there.
      if (operation === "link-hit" || operation === "link")
        expect(m.kv, `${target} ${operation} kv`).toBeGreaterThan(0);
    }
  });

  it("measures staleness after an unlink between the two targets over one database", () => {
    expect(result.staleness.map((pair) => `${pair.from}→${pair.to}`).sort()).toEqual(["deno→node", "node→deno"]);
    for (const pair of result.staleness) {
      expect(pair.error).toBeUndefined();
      expect(pair.samples).toHaveLength(1);
      expect(pair.samples[0]).toBeGreaterThan(0);
    }
  });

  it("times a cold start per target apart from the warm figures", async () => {
    expect(result.coldStarts.map((c) => [c.target, c.samples.length, c.timings.length, c.errors])).toEqual([
      ["node", 1, 1, []],
      ["deno", 1, 1, []],
    ]);
    const markdown = await readFile(join(dir, "out", "bench.md"), "utf8");
    expect(markdown).toMatch(/### Cold starts/);
    expect(markdown).toMatch(/### Where the time went/);
    const split = await readFile(join(dir, "out", "bench-split.svg"), "utf8");
    for (const target of ["node", "deno"]) expect(split).toContain(`${target} · link lookup (KV hit)`);
  });

  it("removes the links and assets it made; its documents stay", async () => {
    // Per target: 16 + 16 seeded links, 11 new ones (1 warm-up + 10), 2 assets.
    expect(result.cleanup).toEqual({ unlinked: 2 * (16 + 16 + 11), assetsDeleted: 4, failures: [] });
    const sql = createNeonSql({ databaseUrl: stack.databaseUrl, fetchEndpoint: stack.neonFetchEndpoint });
    const count = async (table: string) =>
      (
        await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE tenant_id LIKE $1`, [
          `${result.tenant}%`,
        ])
      )[0]!.n;
    expect(await count("linked_external_accounts")).toBe(0);
    expect(await count("assets")).toBe(0);
    expect(await count("documents")).toBe(2 * 11);
  });

  it("signs in with a given token as one identity, leaving out what needs many users; an unreachable target is reported", async () => {
    const token = await new SignJWT({ [SIGN_IN_SETTINGS.AUTH_TENANT_CLAIM]: "given-tenant" })
      .setProtectedHeader({ alg: "ES256", kid: KID, typ: "JWT" })
      .setSubject("given-user")
      .setIssuer(SIGN_IN_SETTINGS.AUTH_ISSUER)
      .setAudience(SIGN_IN_SETTINGS.AUTH_AUDIENCE)
      .setIssuedAt()
      .setExpirationTime("10m")
      .sign(privateKey);
    const out = join(dir, "given");
    const gone = `gone=http://127.0.0.1:${await refusedPort()}`; // nothing listens there
    const args = ["--target", `node=${node().url}`, "--target", `deno=${deno().url}`, "--target", gone];
    args.push("--out", out);
    args.push("--requests", "4", "--rounds", "1", "--warmup", "0", "--staleness", "1", "--rate", "20");
    const given = await runScript("bench/bench.ts", args, { BENCH_TOKEN: token });
    expect(given.code, given.stderr).toBe(0);
    expect(given.stderr).toMatch(/Left out with one identity \(--token\): link\b/);
    expect(given.stderr).toContain("Tenant of this run: the given token's;");
    expect(given.stderr).toMatch(/20 per second \(open model\)/);
    const report = JSON.parse(await readFile(join(out, "bench.json"), "utf8")) as BenchJson;
    expect(report.tenant).toBe("the given token's");
    expect(report.targets.map((t) => [t.target, t.available])).toEqual([
      ["node", true],
      ["deno", true],
      ["gone", false],
    ]);
    expect(given.stdout).toMatch(/gone unavailable: \/healthz: ECONNREFUSED/);
    const measured = OPERATIONS.filter((operation) => operation !== "link");
    expect(new Set(report.results.map((r) => JSON.stringify(r.load)))).toEqual(
      new Set([JSON.stringify({ model: "open", ratePerSecond: 20 })]),
    );
    expect(report.results.map((r) => [r.target, r.operation, r.errors])).toEqual(
      ["node", "deno"].flatMap((target) => measured.map((operation) => [target, operation, 0])),
    );
    // Its one link (every lookup's, on both targets) and two assets per target.
    expect(report.cleanup).toEqual({ unlinked: 1, assetsDeleted: 4, failures: [] });
    // Its one user links the probe's account once its own is unlinked, one pair after the other.
    expect(report.staleness.map((pair) => [pair.from, pair.to, pair.samples.length, pair.error])).toEqual([
      ["node", "deno", 1, undefined],
      ["deno", "node", 1, undefined],
    ]);
    expect(await readFile(join(out, "bench.md"), "utf8")).not.toContain(token);
  }, 60_000);

  it("never sends more than --max-requests, clean-up included", async () => {
    const proxy = await countingProxy(node().url);
    try {
      const out = join(dir, "bounded");
      const args = ["--target", `node=${proxy.url}`, ...signing(), "--operations", "link-hit,document-create"];
      args.push(
        "--requests",
        "30",
        "--rounds",
        "2",
        "--warmup",
        "0",
        "--staleness",
        "0",
        "--max-requests",
        "60",
        "--out",
        out,
      );
      const bounded = await runScript("bench/bench.ts", args);
      expect(bounded.code, bounded.stderr).toBe(0);
      const report = JSON.parse(await readFile(join(out, "bench.json"), "utf8")) as BenchJson;
      expect(proxy.count()).toBe(report.requestsSent);
      expect(proxy.count()).toBeLessThanOrEqual(60);
      expect(report.cleanup).toMatchObject({ unlinked: 16, failures: [] });
      const unsent = report.results.flatMap((r) => Object.entries(r.errorKinds));
      expect(unsent).toContainEqual(["--max-requests 60 reached: not sent", expect.any(Number)]);
    } finally {
      await proxy.close();
    }
  }, 120_000);
});
