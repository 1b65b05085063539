// With Postgres out of reach: 503, never a half-answer, and liveness unaffected.
import { describe, expect, it } from "vitest";
import type { RuntimeName } from "../../../dev/launchers/index.ts";
import { type Call, expectProblem, freshTenant } from "../client.ts";

export function unavailableCases(call: Call, runtime: RuntimeName) {
  describe("database unreachable", () => {
    it("GET /healthz still answers 200; GET /readyz answers 503", async () => {
      expect((await call("GET", "/healthz", { as: null })).json).toEqual({ status: "ok", runtime });
      const notReady = await call("GET", "/readyz", { as: null });
      expect(expectProblem(notReady, 503, "database_unavailable").runtime).toBe(runtime);
      expect(notReady.headers.get("retry-after")).toBe("5");
    });

    it("reads answer 503 database_unavailable with Retry-After; writes never claim more than is known", async () => {
      const as = { sub: "alice", tid: freshTenant() };
      const read = await call("GET", "/v1/links/github/unreachable?consistency=strong", { as });
      expectProblem(read, 503, "database_unavailable");
      expect(Number(read.headers.get("retry-after"))).toBeGreaterThan(0);
      const writes = [
        await call("POST", "/v1/documents", { as, body: { contractId: "c" } }),
        await call("PUT", "/v1/links/github/unreachable", { as }),
        await call("POST", "/v1/assets", { as, body: { name: "Chair", material: "oak" } }),
      ];
      for (const answer of writes) {
        if (runtime === "cloudflare" || runtime === "fastly") {
          // workerd reports a refused connection as "Network connection lost", and js-compute on
          // Viceroy as a bare NetworkError, the same words as a connection lost after the request
          // went out: a write cannot be called unwritten.
          expectProblem(answer, 504, "database_outcome_unknown");
          expect(answer.headers.get("retry-after")).toBeNull();
        } else {
          expectProblem(answer, 503, "database_unavailable");
          expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0);
        }
      }
    });

    it("a request refused for what it sent is still a 4xx, not a 503", async () => {
      const as = { sub: "alice", tid: freshTenant() };
      expectProblem(await call("POST", "/v1/documents", { as, body: { title: 1 } }), 422, "validation_failed");
      expectProblem(await call("GET", "/v1/me/links", { as: null }), 401, "unauthorized");
    });
  });
}
