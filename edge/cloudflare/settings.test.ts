import { describe, expect, it } from "vitest";
import type { WorkersKvNamespace } from "../kv/workers-kv.ts";
import { invocationLimits } from "./settings.ts";

const LINKS = {} as WorkersKvNamespace;

describe("WORKERS_SUBREQUESTS", () => {
  it("defaults to the Free plan's 50 subrequests, two of them left to other fetches", () => {
    expect(invocationLimits({ LINKS })).toEqual({ kvOperations: 1_000, sqlStatements: 48 });
  });

  it("takes the Paid plan's figure", () => {
    expect(invocationLimits({ LINKS, WORKERS_SUBREQUESTS: " 10000 " })).toEqual({
      kvOperations: 1_000,
      sqlStatements: 9_998,
    });
  });

  it.each(["ten", "9", "-50", "50.5", "1e3"])("refuses %j, naming the setting", (value) => {
    expect(() => invocationLimits({ LINKS, WORKERS_SUBREQUESTS: value })).toThrow(
      /^WORKERS_SUBREQUESTS must be a whole number, at least 10/,
    );
  });
});
