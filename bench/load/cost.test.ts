import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { InputFileError } from "../lib/cli.ts";
import { costPerMillion, costReport, costText, metersOf } from "./cost.ts";
import { DEFAULT_PRICE_FILE, loadPrices, type Price, parsePrices } from "./price-file.ts";
import type { Summary } from "./summary.ts";

const price = (
  item: string,
  platform: string,
  meter: Price["meter"],
  usd: number | null,
  units = 1_000_000,
): Price => ({
  item,
  platform,
  meter,
  usd,
  units,
  per: "million",
  date: "2026-12-05",
  source: "https://example.com/pricing",
});

const PRICES = [
  price("requests", "Cloudflare", "requests", 0.3),
  price("KV reads", "Cloudflare", "kvGet", 0.5),
  price("KV writes", "Cloudflare", "kvPut", 5),
  price("compute", "Neon", "sqlStatements", 0.106, 3_600_000),
  price("requests", "Fastly", "requests", null),
];

const summary = (
  operation: Summary["operation"],
  requests: number,
  statements: number,
  get: number,
  put: number,
  target = "cloudflare",
  bytesOut = 500,
) =>
  ({
    target,
    operation,
    requests,
    roundTripsPerRequest: statements,
    kvPerRequest: { get, put, delete: 0, list: 0 },
    bytesOutPerRequest: bytesOut,
  }) as unknown as Summary;

describe("cost per million operations", () => {
  it("weights each operation's counts by its requests, the bare KV get left out", () => {
    const meters = metersOf([
      summary("link-hit", 300, 0, 1, 0, "cloudflare", 300),
      summary("link", 100, 2, 1, 1, "cloudflare", 700),
      summary("kv-baseline", 500, 0, 9, 9, "cloudflare", 9000),
    ]);
    expect(meters).toMatchObject({ requests: 1, sqlStatements: 0.5, kvGet: 1, kvPut: 0.25, bytesOut: 400 });
  });

  it("multiplies the counts by the prices of the platform billed and the database", () => {
    const cost = costPerMillion({ requests: 1, kvGet: 1, kvPut: 0.25, sqlStatements: 0.5 }, PRICES.slice(0, 4));
    expect(cost.parts).toEqual({
      requests: 0.3,
      "KV reads": 0.5,
      "KV writes": 1.25,
      compute: expect.closeTo((0.5 / 3_600_000) * 0.106 * 1e6, 9),
    });
    expect(cost.usdPerMillion).toBeCloseTo(0.3 + 0.5 + 1.25 + 0.5 * (0.106 / 3.6), 9);
  });

  it("is n/a where a price needed is unconfirmed, and says which", () => {
    expect(costPerMillion({ requests: 1 }, PRICES).usdPerMillion).toBeNull();
    const report = costReport(
      [summary("link-hit", 10, 0, 1, 0, "fastly-viceroy")],
      [{ target: "fastly-viceroy", available: true, platform: "Viceroy", billedAs: "Fastly" }],
      PRICES,
      "bench/prices.json",
    );
    expect(report.perTarget).toEqual([
      expect.objectContaining({
        target: "fastly-viceroy",
        platform: "Viceroy",
        pricedAs: "Fastly",
        usdPerMillion: null,
      }),
    ]);
    expect(report.prices.map((p) => p.item)).not.toContain("Fastly requests");
    expect(costText(report)).toMatch(/Unconfirmed, shown as n\/a: requests/);
  });
});

describe("the price file", () => {
  it("as shipped, is valid and dates and sources every price", async () => {
    const prices = await loadPrices(DEFAULT_PRICE_FILE);
    expect(prices.length).toBeGreaterThan(5);
    expect(JSON.parse(await readFile(DEFAULT_PRICE_FILE, "utf8")).prices).toHaveLength(prices.length);
  });

  it("refuses a bad field in one line naming the file and the field", () => {
    const bad = JSON.stringify({
      prices: [price("a", "Neon", "requests", 1), { ...price("b", "Neon", "requests", 1), usd: "1" }],
    });
    expect(() => parsePrices(bad, "my-prices.json")).toThrow(
      new InputFileError("my-prices.json: prices[1].usd must be a price ≥ 0 in USD, or null"),
    );
    expect(() => parsePrices("{", "my-prices.json")).toThrow(/^my-prices\.json: not JSON/);
    expect(() => parsePrices('{"prices":[{"meter":"x"}]}', "p.json")).toThrow("p.json: prices[0].item must be");
  });
});
