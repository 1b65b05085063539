import { describe, expect, it } from "vitest";
import { unknownParameterIssues } from "./query.ts";
import { validationFailed } from "./validation.ts";

const PAGE = ["after", "limit"];

/** What a 422 lists for a query parsed as `given`, sent as `url`, to a route taking `takes`. */
const refusals = (url: string, given: object, takes: readonly string[]) =>
  validationFailed(unknownParameterIssues(url, given, takes)).extensions.errors;

describe("unknownParameterIssues", () => {
  it("refuses each parameter the route does not take, naming those it takes", () => {
    expect(
      refusals("http://h/v1/documents?cursor=2&limit=5&sort=x", { cursor: "2", limit: "5", sort: "x" }, PAGE),
    ).toEqual([
      { field: "cursor", message: "is not a query parameter of this route, which takes `after` and `limit`" },
      { field: "sort", message: "is not a query parameter of this route, which takes `after` and `limit`" },
    ]);
    expect(refusals("http://h/v1/admin/links/sync?x=1", { x: "1" }, [])).toEqual([
      { field: "x", message: "is not a query parameter of this route, which takes none" },
    ]);
  });

  it("refuses a value under no name, which the parsed query leaves out", () => {
    for (const url of ["http://h/v1/documents?limit=5&=3", "http://h/v1/documents?=3&limit=5"]) {
      expect(refusals(url, { limit: "5" }, PAGE), url).toEqual([
        { field: "", message: "is a query parameter without a name" },
      ]);
    }
    // A value may hold `?=`, which starts no parameter.
    expect(unknownParameterIssues("http://h/v1/documents?after=a?=b", { after: "a?=b" }, PAGE)).toEqual([]);
  });

  it("refuses nothing of a query that carries no parameter, or only those the route takes", () => {
    for (const url of [
      "http://h/v1/documents",
      "http://h/v1/documents?",
      "http://h/v1/documents?&",
      "http://h/a=b/x",
    ]) {
      expect(unknownParameterIssues(url, {}, PAGE), url).toEqual([]);
    }
    expect(unknownParameterIssues("http://h/v1/documents?after=1&limit=2", { after: "1", limit: "2" }, PAGE)).toEqual(
      [],
    );
  });
});
