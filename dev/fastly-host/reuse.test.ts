import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { KV_STORE } from "../../edge/fastly/bindings.ts";
import { ensureFastlyWasm, FRESH_PROBE_WASM, REUSE_PROBE_WASM } from "../build/fastly.ts";
import { type FastlyHost, startFastlyHost } from "./host.ts";

// Reusable sandboxes: an instance of a service that opts in (reuse-probe/: at most 3 requests,
// 300 ms between them; it answers how many requests its instance has served) asks the host for
// its next request through fastly_http_downstream, and keeps its JavaScript state meanwhile.

const config = { backends: {}, kvStores: { [KV_STORE]: [] }, configStores: {}, secretStores: {} };
let probe: string;
let fresh: string;
const hosts: FastlyHost[] = [];

beforeAll(async () => {
  probe = await ensureFastlyWasm(REUSE_PROBE_WASM);
  fresh = await ensureFastlyWasm(FRESH_PROBE_WASM);
}, 300_000);
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()));
});

async function start(wasmPath: string, concurrency: number) {
  const logs: string[] = [];
  const host = await startFastlyHost({ wasmPath, config, concurrency, log: (_, text) => logs.push(text) });
  hosts.push(host);
  return { host, logs };
}

const text = async (host: FastlyHost, path = "/") => (await fetch(`${host.url}${path}`)).text();

async function inTurn(host: FastlyHost, count: number): Promise<string[]> {
  const answers: string[] = [];
  for (let i = 0; i < count; i++) answers.push(await text(host));
  return answers;
}

describe("reusable sandboxes in the Fastly test host", () => {
  it("an instance keeps its state across requests and is made fresh after its maxRequests", async () => {
    const { host, logs } = await start(probe, 1);
    expect(await inTurn(host, 7)).toEqual(["1", "2", "3", "1", "2", "3", "1"]);
    expect(host.served).toEqual({ fresh: 3, reused: 4 });
    expect(logs.join("")).toBe(""); // an instance that has served its last request exits quietly
  });

  it("an instance that waits longer than betweenRequestTimeoutMs exits; the next request gets a fresh one", async () => {
    const { host, logs } = await start(probe, 1);
    expect(await inTurn(host, 2)).toEqual(["1", "2"]);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await inTurn(host, 2)).toEqual(["1", "2"]);
    expect(host.served).toEqual({ fresh: 2, reused: 2 });
    expect(logs.join("")).toBe("");
  });

  it("concurrent requests share the waiting instances and fresh ones; each is answered once", async () => {
    const { host } = await start(probe, 2);
    const answers = await Promise.all(Array.from({ length: 12 }, () => text(host)));
    expect(answers.every((answer) => ["1", "2", "3"].includes(answer))).toBe(true);
    expect(answers.filter((answer) => answer === "1").length).toBe(host.served.fresh);
    expect(host.served.fresh + host.served.reused).toBe(12);
    expect(host.served.reused).toBeGreaterThan(0);
  });

  it("a service that does not opt in gets a fresh instance for every request, as before", async () => {
    const { host } = await start(fresh, 1);
    expect(await inTurn(host, 4)).toEqual(["1", "1", "1", "1"]);
    expect(host.served).toEqual({ fresh: 4, reused: 0 });
  });
});
