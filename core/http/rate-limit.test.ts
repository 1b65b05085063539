import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { createMemoryRateLimiter } from "../../edge/rate-limit/memory.ts";
import type { AppEnv } from "../deps.ts";
import { notFound, type ProblemError, problemResponse } from "./problem.ts";
import { rateLimits } from "./rate-limit.ts";
import { parseRateLimits } from "./rate-limit-settings.ts";

/** A limited app over a memory limiter at a fixed time: 42 s before its window turns. */
function limitedApp(settings: Record<string, string>) {
  const handled: string[] = [];
  const app = new Hono<AppEnv>();
  app.onError((error) => problemResponse(error as ProblemError));
  app.use(async (c, next) => {
    c.set("principal", { userId: c.req.header("x-sub")!, tenantId: c.req.header("x-tid")!, role: "user" });
    c.set("timed", (_part, work) => work());
    await next();
  });
  const limits = parseRateLimits(settings);
  app.use(
    rateLimits(
      createMemoryRateLimiter(() => 60_000 * 1000 + 18_000),
      () => limits,
    ),
  );
  app.post("/things", (c) => {
    handled.push(c.req.header("x-sub")!);
    return c.body(null, 201);
  });
  app.get("/things", (c) => c.body(null, 200));
  app.get("/missing", () => {
    throw notFound();
  });
  const send = (method: string, path: string, sub: string, tid = "acme") =>
    app.request(path, { method, headers: { "x-sub": sub, "x-tid": tid } });
  return { send, handled };
}

describe("rate limits", () => {
  it("announce the quotas and what is left of them on every answer, errors included", async () => {
    const { send } = limitedApp({ RATE_LIMIT_CALLER_READS: "5", RATE_LIMIT_TENANT_READS: "50" });
    const answer = await send("GET", "/missing", "alice");
    expect(answer.status).toBe(404);
    expect(answer.headers.get("ratelimit-policy")).toBe('"caller-reads";q=5;w=60, "tenant-reads";q=50;w=60');
    expect(answer.headers.get("ratelimit")).toBe('"caller-reads";r=4;t=42, "tenant-reads";r=49;t=42');
  });

  it("refuse a caller past its quota with 429 before the handler runs; others go on", async () => {
    const { send, handled } = limitedApp({ RATE_LIMIT_CALLER_WRITES: "2" });
    expect((await send("POST", "/things", "alice")).status).toBe(201);
    expect((await send("POST", "/things", "alice")).status).toBe(201);
    const refused = await send("POST", "/things", "alice");
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({
      code: "rate_limited",
      status: 429,
      "violated-policies": ["caller-writes"],
    });
    expect(refused.headers.get("retry-after")).toBe("42");
    expect(refused.headers.get("ratelimit")).toBe('"caller-writes";r=0;t=42');
    expect(handled).toEqual(["alice", "alice"]);
    expect((await send("POST", "/things", "bob")).status).toBe(201);
    expect((await send("GET", "/things", "alice")).status).toBe(200);
  });

  it("refuse every caller of a tenant past its quota, not another tenant's; a caller refused for itself spends none of it", async () => {
    const { send } = limitedApp({ RATE_LIMIT_CALLER_WRITES: "1", RATE_LIMIT_TENANT_WRITES: "2" });
    expect((await send("POST", "/things", "alice")).status).toBe(201);
    expect((await send("POST", "/things", "alice")).status).toBe(429);
    expect((await send("POST", "/things", "bob")).status).toBe(201);
    const refused = await send("POST", "/things", "carol");
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { detail: string }).detail).toContain("this tenant");
    expect((await send("POST", "/things", "carol", "globex")).status).toBe(201);
  });
});

describe("rate limit settings", () => {
  it("are whole numbers of requests per minute, at least 1, refused by name", () => {
    expect(parseRateLimits({}).callerWrites).toEqual({ name: "caller-writes", limit: 1200, windowSeconds: 60 });
    expect(parseRateLimits({ RATE_LIMIT_TENANT_READS: "7" }).tenantReads.limit).toBe(7);
    for (const bad of ["0", "-1", "1.5", "many"]) {
      expect(() => parseRateLimits({ RATE_LIMIT_CALLER_READS: bad })).toThrow(/RATE_LIMIT_CALLER_READS/);
    }
  });
});
