// A DATABASE_URL whose login the database refuses (a wrong password): every request that reaches
// the database answers 500 misconfigured naming the setting, never "outcome unknown".
import { describe, expect, it } from "vitest";
import { type Call, expectProblem, freshTenant } from "../client.ts";

export function loginRefusedCases(call: Call) {
  describe("database login refused", () => {
    it("reads and writes answer 500 misconfigured naming DATABASE_URL", async () => {
      const as = { sub: "alice", tid: freshTenant() };
      const answers = [
        await call("GET", "/v1/links/github/refused?consistency=strong", { as }),
        await call("POST", "/v1/documents", { as, body: { contractId: "c" } }),
        await call("PUT", "/v1/links/github/refused", { as }),
      ];
      for (const answer of answers) {
        const problem = expectProblem(answer, 500, "misconfigured");
        expect(problem.setting).toBe("DATABASE_URL");
      }
    });
  });
}
