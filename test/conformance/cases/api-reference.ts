// /docs: served in front of the app by the one server started with API_DOCS=on; every runtime's
// app answers a problem that says where the reference is.
import { expect, it } from "vitest";
import { type Call, expectProblem } from "../client.ts";

export function apiReferenceCases(call: Call) {
  it("answers /docs with a 404 problem naming where the reference and the document are", async () => {
    for (const path of ["/docs", "/docs/scalar.js"]) {
      const answer = await call("GET", path, { as: null });
      expectProblem(answer, 404, "not_found");
      expect(answer.json.detail, path).toMatch(/API_DOCS=on.*\/docs.*\/openapi\.json/);
    }
  });
}
