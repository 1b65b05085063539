import { describe, expect, it } from "vitest";
import { describeWithPostgres } from "../../dev/support/postgres.ts";
import { LOCAL_POSTGRES_URL } from "../../dev/support/scratch-schema.ts";
import { BLOCK_ROUNDS, endpointOverheadNote, measureEndpointOverhead, roundTripFigures } from "./endpoint-overhead.ts";

const constant = (count: number, value: number) => Array.from({ length: count }, () => value);

describe("roundTripFigures", () => {
  it("takes the ratio within each block, so a slow stretch on both sides does not move it", () => {
    // Block 2 runs on a machine twice as slow for both ways: each block's own ratio is 1.25.
    const pg = [...constant(BLOCK_ROUNDS, 0.4), ...constant(BLOCK_ROUNDS, 0.8), ...constant(BLOCK_ROUNDS, 0.4)];
    const endpoint = [...constant(BLOCK_ROUNDS, 0.5), ...constant(BLOCK_ROUNDS, 1), ...constant(BLOCK_ROUNDS, 0.5)];
    const figures = roundTripFigures(pg, endpoint);
    expect(figures.blocks).toBe(3);
    expect(figures.ratioP50).toBe(1.25);
    expect(figures.ratioP50Spread).toEqual({ min: 1.25, max: 1.25 });
    expect(figures).toMatchObject({ pgP50Ms: 0.4, endpointP50Ms: 0.5 });
  });

  it("reports the median block and the spread", () => {
    const blockOf = (ratio: number) => ({ pg: constant(BLOCK_ROUNDS, 1), endpoint: constant(BLOCK_ROUNDS, ratio) });
    const blocks = [1.2, 1.9, 1.3, 1.4, 1.1].map(blockOf);
    const figures = roundTripFigures(
      blocks.flatMap((b) => b.pg),
      blocks.flatMap((b) => b.endpoint),
    );
    expect(figures.ratioP50).toBe(1.3);
    expect(figures.ratioP50Spread).toEqual({ min: 1.1, max: 1.9 });
  });

  it("folds a short tail into the last block and keeps one block for few samples", () => {
    const tail = Math.floor(BLOCK_ROUNDS / 3);
    const pg = [...constant(BLOCK_ROUNDS, 1), ...constant(tail, 1)];
    const endpoint = [...constant(BLOCK_ROUNDS, 1.5), ...constant(tail, 3)];
    expect(roundTripFigures(pg, endpoint)).toMatchObject({ blocks: 1, ratioP50: 1.5 });
    expect(roundTripFigures([1, 1, 1], [2, 2, 2])).toMatchObject({ blocks: 1, ratioP50: 2 });
  });
});

describeWithPostgres("measureEndpointOverhead", () => {
  it("times pg and the endpoint side by side and says so in the bench's note", { timeout: 60_000 }, async () => {
    const result = await measureEndpointOverhead(LOCAL_POSTGRES_URL, 2 * BLOCK_ROUNDS);
    for (const figures of [result.insert, result.select1]) {
      expect(figures.blocks).toBe(2);
      expect(figures.pgP50Ms).toBeGreaterThan(0);
      // The endpoint is pg plus an HTTP hop: it cannot be faster than pg itself.
      expect(figures.endpointP50Ms).toBeGreaterThan(figures.pgP50Ms);
      expect(figures.ratioP50Spread.min).toBeLessThanOrEqual(figures.ratioP50);
      expect(figures.ratioP50Spread.max).toBeGreaterThanOrEqual(figures.ratioP50);
    }
    const note = endpointOverheadNote(result);
    expect(note).toContain(`one-row INSERT ${result.insert.endpointP50Ms.toFixed(2)} ms through the endpoint`);
    expect(note).toContain(`${result.insert.ratioP50.toFixed(2)}× (blocks `);
  });
});
