// Rate limits per caller and per tenant, against a deployment started with the small quotas of
// RATE_LIMITED_SETTINGS: a caller past its quota gets 429 with the rate-limit fields and nothing
// is written; another caller of the tenant, and another tenant, go on. Viceroy, where the Fastly
// service runs here, stubs Fastly's Edge Rate Limiter (it never refuses): there these cases are
// replaced by viceroyRateLimitCases, docs/fastly.md names them, and the adapter's refusals are
// proven against a fake of the platform's API (edge/rate-limit/fastly-erl.test.ts).
import { describe, expect, it } from "vitest";
import { type Answer, type Call, expectProblem, expectStatus, freshTenant, unique } from "../client.ts";

export const RATE_LIMITED_SETTINGS = {
  RATE_LIMIT_CALLER_WRITES: "3",
  RATE_LIMIT_TENANT_WRITES: "5",
  RATE_LIMIT_CALLER_READS: "3",
  RATE_LIMIT_TENANT_READS: "100",
  RATE_LIMIT_REFUSED_TOKENS: "4",
};

/** The RateLimit field's item for `policy`: its remaining quota and reset. */
function reported(answer: Answer, policy: string): { r: number; t: number } | undefined {
  const item = (answer.headers.get("ratelimit") ?? "").split(",").find((part) => part.trim().startsWith(`"${policy}"`));
  const r = item?.match(/;r=(\d+)/)?.[1];
  const t = item?.match(/;t=(\d+)/)?.[1];
  return r === undefined || t === undefined ? undefined : { r: Number(r), t: Number(t) };
}

/** The cases' names, which docs/fastly.md lists as what Viceroy cannot run. */
export const RATE_LIMIT_CASES = {
  callerWrites: "a caller past its write quota gets 429 rate_limited with the fields; nothing is written",
  tenantWrites: "another caller of the tenant goes on until the tenant's quota is spent; another tenant goes on",
  callerReads: "reads have quotas of their own, per caller",
} as const;

const createDocument = (call: Call, as: object, contractId: string) =>
  call("POST", "/v1/documents", { as, body: { contractId } });

export function rateLimitCases(call: Call) {
  describe("rate limits", () => {
    const create = (as: object, contractId: string) => createDocument(call, as, contractId);

    /**
     * Where windows are aligned to the clock, a case that crossed into the next window would find
     * its quota whole again: start it early in a window (the reset a throwaway read reports).
     */
    async function earlyInAWindow() {
      const probe = await call("GET", "/v1/documents", { as: { sub: "probe", tid: freshTenant() } });
      const { t } = reported(probe, "caller-reads") ?? { t: 60 };
      if (t < 15) await new Promise((resolve) => setTimeout(resolve, (t + 1) * 1000));
    }

    it(RATE_LIMIT_CASES.callerWrites, async () => {
      await earlyInAWindow();
      const tid = freshTenant();
      const alice = { sub: "alice", tid };
      for (let i = 1; i <= 3; i++) {
        const answer = await create(alice, `c-${i}`);
        expectStatus(answer, 201);
        expect(answer.headers.get("ratelimit-policy")).toBe('"caller-writes";q=3;w=60, "tenant-writes";q=5;w=60');
        expect(reported(answer, "caller-writes")?.r).toBe(3 - i);
      }
      const refused = await create(alice, "refused");
      expect(expectProblem(refused, 429, "rate_limited")["violated-policies"]).toEqual(["caller-writes"]);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(refused.headers.get("ratelimit-policy")).toContain('"caller-writes";q=3;w=60');
      expect(reported(refused, "caller-writes")?.r).toBe(0);
      // Refused for the caller's quota: the tenant's was not counted, so it is not reported.
      expect(reported(refused, "tenant-writes")).toBeUndefined();

      // Read by another caller (reads have quotas of their own): three documents, not four.
      const listed = await call("GET", "/v1/documents?limit=10", { as: { sub: "auditor", tid } });
      expectStatus(listed, 200);
      expect(listed.json.items.map((item: { contractId: string }) => item.contractId)).toEqual(["c-1", "c-2", "c-3"]);
      expect(reported(listed, "caller-reads")?.r).toBe(2);
    });

    it(RATE_LIMIT_CASES.tenantWrites, async () => {
      await earlyInAWindow();
      const tid = freshTenant();
      // Three of alice's, one of bob's, one of carol's: the tenant's five.
      for (let i = 0; i < 3; i++) expectStatus(await create({ sub: "alice", tid }, unique("a")), 201);
      expectProblem(await create({ sub: "alice", tid }, unique("a")), 429, "rate_limited");
      expectStatus(await create({ sub: "bob", tid }, unique("b")), 201);
      const fifth = await create({ sub: "carol", tid }, unique("c"));
      expectStatus(fifth, 201);
      expect(reported(fifth, "tenant-writes")?.r).toBe(0);

      const refused = await create({ sub: "dave", tid }, "refused");
      const problem = expectProblem(refused, 429, "rate_limited");
      expect(problem.detail).toContain("tenant");
      expect(problem["violated-policies"]).toEqual(["tenant-writes"]);
      expect(reported(refused, "tenant-writes")?.r).toBe(0);
      expect(reported(refused, "caller-writes")?.r).toBe(2);

      expectStatus(await create({ sub: "dave", tid: freshTenant() }, unique("d")), 201);
      const listed = await call("GET", "/v1/documents?limit=10", { as: { sub: "auditor", tid } });
      expect(listed.json.items).toHaveLength(5);
    });

    it(RATE_LIMIT_CASES.callerReads, async () => {
      await earlyInAWindow();
      const as = { sub: "reader", tid: freshTenant() };
      for (let i = 0; i < 3; i++) expectStatus(await call("GET", "/v1/documents", { as }), 200);
      const refused = await call("GET", "/v1/documents", { as });
      expectProblem(refused, 429, "rate_limited");
      expect(refused.headers.get("ratelimit-policy")).toContain('"caller-reads";q=3;w=60');
      // Writes are counted apart.
      expectStatus(await create(as, unique("w")), 201);
    });
    // Last: from here on this client's address is over its quota for the rest of the window.
    it("a client address past its quota of refused tokens gets 429, whatever X-Forwarded-For it claims", async () => {
      await earlyInAWindow();
      const refusedFrom = (i: number) =>
        call("GET", "/v1/me/links", { as: "Bearer not.a.token", headers: { "x-forwarded-for": `198.51.100.${i}` } });
      for (let i = 1; i <= 4; i++) expectProblem(await refusedFrom(i), 401, "unauthorized");
      const refused = await refusedFrom(5);
      const problem = expectProblem(refused, 429, "rate_limited");
      expect(problem["violated-policies"]).toEqual(["refused-tokens"]);
      expect(refused.headers.get("ratelimit-policy")).toBe('"refused-tokens";q=4;w=60');
      expect(reported(refused, "refused-tokens")?.r).toBe(0);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expectProblem(await refusedFrom(6), 429, "rate_limited");
    });
  });
}

/**
 * On Viceroy: the quotas are counted through `fastly:edge-rate-limiter` and announced, and past
 * them the request still goes through, because Viceroy's limiter answers every check "not
 * limited" and every count 0. Should a Viceroy ever count, this fails and the cases above apply.
 */
export function viceroyRateLimitCases(call: Call) {
  describe("rate limits on Viceroy, whose Edge Rate Limiter never refuses (docs/fastly.md)", () => {
    it("the quotas are announced on every answer, whole, and past them nothing is refused", async () => {
      const as = { sub: "alice", tid: freshTenant() };
      for (let i = 1; i <= 4; i++) {
        const answer = await createDocument(call, as, `c-${i}`);
        expectStatus(answer, 201);
        expect(answer.headers.get("ratelimit-policy")).toBe('"caller-writes";q=3;w=60, "tenant-writes";q=5;w=60');
        expect(reported(answer, "caller-writes")).toEqual({ r: 3, t: 60 });
      }
    });
  });
}
