import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRuntime } from "../launchers/index.ts";
import { bearer, TEST_AUTH_SECRET } from "../support/tokens.ts";
import { closeRuntimes, launchRuntimes, parseRuntimeList } from "./multi-runtime.ts";
import { type LocalStack, startLocalStack } from "./stack.ts";

describe("--runtime lists", () => {
  it("takes one runtime or several, each once, in order", () => {
    expect(parseRuntimeList("node")).toEqual(["node"]);
    expect(parseRuntimeList("cloudflare, fastly,cloudflare")).toEqual(["cloudflare", "fastly"]);
  });

  it("refuses unknown and empty lists, naming the choices", () => {
    expect(() => parseRuntimeList("cloudflare,akamai")).toThrow(/"akamai".*node, cloudflare, deno, fastly/);
    expect(() => parseRuntimeList(",")).toThrow(/choose from/);
  });
});

describe("several runtimes over one database", () => {
  let stack: LocalStack;
  let runtimes: RunningRuntime[] = [];
  beforeAll(async () => {
    stack = await startLocalStack();
    const env = {
      AUTH_SECRET: TEST_AUTH_SECRET,
      ...stack.settings,
    };
    runtimes = await launchRuntimes(["node", "deno"], env, 0);
  }, 180_000);
  afterAll(async () => {
    await closeRuntimes(runtimes);
    await stack?.close();
  });

  it("serves each on its own port, and a link made through one is the other's too", async () => {
    const [node, deno] = runtimes as [RunningRuntime, RunningRuntime];
    expect(new Set(runtimes.map((runtime) => runtime.url)).size).toBe(2);
    const headers = await bearer({ sub: "multi", tid: "multi" });
    expect((await fetch(`${node.url}/v1/links/github/multi-1`, { method: "PUT", headers })).status).toBe(201);
    const seen = await fetch(`${deno.url}/v1/links/github/multi-1`, { headers });
    expect(seen.status).toBe(200);
    expect(await seen.json()).toMatchObject({ userId: "multi" });
    expect(await (await fetch(`${deno.url}/healthz`)).json()).toMatchObject({ runtime: "deno" });
  });
});
