import { describe, expect, it } from "vitest";
import { UsageError } from "../../lib/cli.ts";
import { profileOptions } from "./options.ts";

describe("measure:kv-hit-profile's options", () => {
  it("profiles node, workerd and deno and measures Viceroy by default", () => {
    expect(profileOptions([])).toEqual({
      runtimes: ["node", "cloudflare", "deno", "fastly"],
      requests: 5_000,
      warmup: 1_000,
      concurrency: 4,
      top: 0,
      save: undefined,
      viceroyRequests: 500,
      otel: false,
    });
  });

  it("takes a selection of runtimes and counts within their bounds", () => {
    const opts = profileOptions(["--runtimes", "fastly", "--viceroy-requests", "300", "--warmup", "0", "--otel"]);
    expect(opts).toMatchObject({ runtimes: ["fastly"], viceroyRequests: 300, warmup: 0, otel: true });
  });

  it("refuses a runtime it cannot measure, or a count out of bounds, in one line naming the option", () => {
    expect(() => profileOptions(["--runtimes", "node,bun"])).toThrow(
      new UsageError("--runtimes: unknown bun; choose from node, cloudflare, deno, fastly"),
    );
    expect(() => profileOptions(["--concurrency", "0"])).toThrow(UsageError);
    expect(() => profileOptions(["--requests", "many"])).toThrow("--requests must be a whole number ≥ 1");
  });
});
