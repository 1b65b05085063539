// The pieces a run on deployments is made of that need no server: its targets, its budget,
// the command line it records, and the split of each answer's time.
import { describe, expect, it } from "vitest";
import { parseServerTiming, timedAnswer } from "../../dev/support/server-timing.ts";
import { BudgetSpentError, RequestBudget } from "./budget.ts";
import { parseTargets, recordedCommand } from "./deployments.ts";
import { splitOf } from "./split.ts";

describe("--target NAME=URL", () => {
  it("takes each deployment's origin under its name", () => {
    expect(parseTargets(["edge=https://api.example.com/", "origin=http://10.0.0.5:8080"])).toEqual([
      { name: "edge", url: "https://api.example.com" },
      { name: "origin", url: "http://10.0.0.5:8080" },
    ]);
  });

  it.each([
    ["no name", "https://api.example.com", /NAME=URL/],
    ["not a URL", "edge=api.example.com", /not a URL/],
    ["another scheme", "edge=ftp://api.example.com", /http:\/\/ or https:\/\/ only/],
    ["a query", "edge=https://api.example.com/?x=1", /no query/],
  ])("refuses %s", (_, flag, message) => {
    expect(() => parseTargets([flag])).toThrow(message);
  });

  it("refuses a name given twice", () => {
    expect(() => parseTargets(["a=http://127.0.0.1:1", "a=http://127.0.0.1:2"])).toThrow(/--target a is given twice/);
  });
});

describe("the request budget", () => {
  it("grants what is left, then refuses by the flag's name", () => {
    const budget = new RequestBudget(5, 8);
    expect(budget.grant(3)).toBe(3);
    expect(budget.grant(3)).toBe(2);
    expect(budget.grant(1)).toBe(0);
    expect(budget.sent).toBe(5);
    expect(() => budget.take()).toThrow(BudgetSpentError);
    expect(() => budget.take()).toThrow("--max-requests 8 reached: not sent");
  });
});

describe("the recorded command", () => {
  it("never holds a token", () => {
    expect(
      recordedCommand(["--target", "a=https://x", "--token", "eyJ.secret.sig", "--admin-token=eyJ.admin.sig"]),
    ).toBe("npm run bench -- --target a=https://x --token … --admin-token=…");
  });
});

describe("Server-Timing", () => {
  const header =
    'total;dur=12.5;desc="total", db;dur=8.25;desc="database", kv;dur=0.5, auth;dur=1.25, runtime;desc="deno"';

  it("reads durations and descriptions", () => {
    expect(Object.fromEntries(parseServerTiming(header))).toEqual({
      total: 12.5,
      db: 8.25,
      kv: 0.5,
      auth: 1.25,
      runtime: "deno",
    });
  });

  it("splits an answer only when every part is there; a release before rate limiting spent none on it", () => {
    expect(timedAnswer(header, 20)).toEqual({ client: 20, total: 12.5, db: 8.25, kv: 0.5, auth: 1.25, limit: 0 });
    expect(timedAnswer(`${header}, limit;dur=0.75`, 20)).toMatchObject({ limit: 0.75 });
    expect(timedAnswer("total;dur=3", 5)).toBeUndefined();
    expect(timedAnswer(null, 5)).toBeUndefined();
  });

  it("splits the mean client time into network and edge, edge into its parts", () => {
    const split = splitOf([
      { client: 20, total: 12, db: 8, kv: 0.5, auth: 1.5, limit: 0.5 },
      { client: 10, total: 6, db: 4, kv: 0.5, auth: 0.5, limit: 0.1 },
    ])!;
    expect(split.meanMs).toEqual({ client: 15, network: 6, edge: 9, auth: 1, db: 6, kv: 0.5, limit: 0.3, app: 1.2 });
    expect(split.timed).toBe(2);
    expect(splitOf([])).toBeNull();
  });
});
