import { describe, expect, it } from "vitest";
import { AGREEMENT, compare, crossCheckText } from "./cross-check.ts";

const ok = { perSecond: 1000, p50: 2, p90: 3, mean: 2, failures: 0 };

describe("the outside cross-check's verdict", () => {
  it("is agreement within the bound on both throughput and p50", () => {
    const check = compare({ ...ok, perSecond: 1100, p50: 2.2 }, ok);
    expect(check.agree).toBe(true);
    expect(crossCheckText("node", check)).toMatch(/req\/s 1\.100×, p50 1\.100× — agree/);
  });

  it("is disagreement past the bound, or when either client saw a failure", () => {
    expect(compare({ ...ok, p50: 2 * (1 + AGREEMENT) + 0.01 }, ok).agree).toBe(false);
    expect(compare({ ...ok, perSecond: 1000 * (1 - AGREEMENT) - 1 }, ok).agree).toBe(false);
    expect(compare(ok, { ...ok, failures: 1 }).agree).toBe(false);
  });
});
