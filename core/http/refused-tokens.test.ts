import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { createMemoryRateLimiter } from "../../edge/rate-limit/memory.ts";
import type { AppEnv } from "../deps.ts";
import { ProblemError, problemResponse } from "./problem.ts";
import { parseRateLimits } from "./rate-limit-settings.ts";
import { refusedTokenQuota } from "./refused-tokens.ts";

/** A token check that accepts "good", over a memory limiter at a fixed time 42 s before its window turns. */
function guardedApp(quota: string) {
  let clock = 60_000 * 1000 + 18_000;
  const checks: string[] = [];
  const limits = parseRateLimits({ RATE_LIMIT_REFUSED_TOKENS: quota });
  const guard = refusedTokenQuota({
    limiter: createMemoryRateLimiter(() => clock),
    policy: () => limits.refusedTokens,
    clientOf: (c) => c.req.header("x-test-client"),
    now: () => clock,
  });
  const app = new Hono<AppEnv>();
  app.onError((error) => problemResponse(error as ProblemError));
  app.use(async (c, next) => {
    c.set("timed", (_part, work) => work());
    await next();
  });
  app.get("/v1/thing", async (c) => {
    await guard(c, async () => {
      checks.push(c.req.header("authorization")!);
      // "down": the check could not be made (the identity provider unreachable), no refusal.
      if (c.req.header("authorization") === "down") throw new ProblemError(503, "keys_unavailable", "no keys");
      if (c.req.header("authorization") !== "good") throw new ProblemError(401, "unauthorized", "refused");
    });
    return c.body(null, 204);
  });
  const send = (client: string | undefined, authorization: string) =>
    app.request("/v1/thing", { headers: { authorization, ...(client ? { "x-test-client": client } : {}) } });
  return { send, checks, advance: (ms: number) => void (clock += ms) };
}

describe("requests with a refused token, per client address", () => {
  it("are answered 401 up to the quota, then 429 with the quota's fields; other clients go on", async () => {
    const { send } = guardedApp("2");
    expect((await send("198.51.100.1", "bad")).status).toBe(401);
    expect((await send("198.51.100.1", "bad")).status).toBe(401);
    const refused = await send("198.51.100.1", "bad");
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ code: "rate_limited", "violated-policies": ["refused-tokens"] });
    expect(refused.headers.get("ratelimit-policy")).toBe('"refused-tokens";q=2;w=60');
    expect(refused.headers.get("ratelimit")).toBe('"refused-tokens";r=0;t=42');
    expect(refused.headers.get("retry-after")).toBe("42");
    expect((await send("198.51.100.2", "bad")).status).toBe(401);
  });

  it("once over it, the client is refused before the token check, a good token included, until the window turns", async () => {
    const { send, checks, advance } = guardedApp("1");
    await send("198.51.100.1", "bad");
    await send("198.51.100.1", "bad");
    const before = checks.length;
    expect((await send("198.51.100.1", "good")).status).toBe(429);
    expect((await send("198.51.100.1", "bad")).status).toBe(429);
    expect(checks).toHaveLength(before);
    advance(42_000);
    expect((await send("198.51.100.1", "good")).status).toBe(204);
  });

  it("forget a refusal when the clock steps back: it never outlasts a window, nor says to wait longer", async () => {
    const { send, advance } = guardedApp("1");
    await send("198.51.100.1", "bad");
    await send("198.51.100.1", "bad");
    advance(-3_600_000); // an hour back: the remembered refusal would otherwise last an hour more
    const answer = await send("198.51.100.1", "good");
    expect([answer.status, answer.headers.get("retry-after")]).toEqual([204, null]);
  });

  it("do not count accepted tokens, nor a request whose client is unknown", async () => {
    const { send } = guardedApp("1");
    for (let i = 0; i < 5; i++) expect((await send("198.51.100.1", "good")).status).toBe(204);
    for (let i = 0; i < 5; i++) expect((await send(undefined, "bad")).status).toBe(401);
    expect((await send("198.51.100.1", "bad")).status).toBe(401);
  });

  it("do not count a token check that failed for another reason: a provider outage locks no client out", async () => {
    const { send } = guardedApp("1");
    for (let i = 0; i < 5; i++) expect((await send("198.51.100.1", "down")).status).toBe(503);
    expect((await send("198.51.100.1", "good")).status).toBe(204);
    expect((await send("198.51.100.1", "bad")).status).toBe(401);
  });
});
