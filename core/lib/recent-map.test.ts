import { expect, it } from "vitest";
import { RecentMap } from "./recent-map.ts";

it("RecentMap keeps at most its size, forgetting the oldest entry first", () => {
  const map = new RecentMap<string, number>(2);
  map.set("a", 1).set("b", 2).set("a", 10); // replacing keeps the size
  expect([...map]).toEqual([
    ["a", 10],
    ["b", 2],
  ]);
  map.set("c", 3);
  expect([...map.keys()]).toEqual(["b", "c"]);
});
