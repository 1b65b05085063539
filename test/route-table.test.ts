// The route table (test/support/routes.ts) is what the capabilities declare, and the app serves
// exactly that: a route put on the app without a declaration fails here, and so does a declared
// route without an example request (with which every cross-cutting suite covers it).
import { describe, expect, it } from "vitest";
import { appWithoutDatabase } from "../dev/support/app-without-database.ts";
import { appRouteKeys, EXAMPLES, parametersOf, routes } from "./support/routes.ts";

const app = appWithoutDatabase();
const declaredKeys = routes.map((route) => route.key).sort();

describe("the route table", () => {
  it("is what the app serves", () => {
    expect(declaredKeys.length).toBeGreaterThan(15);
    expect(appRouteKeys(app)).toEqual(declaredKeys);
  });

  it("has an example request for each declared route, and none for a route not declared", () => {
    expect(Object.keys(EXAMPLES).sort()).toEqual(declaredKeys);
  });

  it.each(routes.map((route) => [route.key, route] as const))("%s: its example matches the pattern", (_key, route) => {
    const pattern = new RegExp(`^${route.pattern.replace(/:[A-Za-z]+/g, "[^/]+")}$`);
    expect(route.example.path.split("?")[0]).toMatch(pattern);
    expect(route.example.method ?? "GET").toBe(route.method);
    expect(parametersOf(route).length).toBe((route.pattern.match(/:/g) ?? []).length);
  });

  it("sees a route put on the app without a declaration", () => {
    const grown = appWithoutDatabase();
    grown.get("/v1/new-capability", (c) => c.text("new"));
    expect(appRouteKeys(grown)).toContain("GET /v1/new-capability");
    expect(declaredKeys).not.toContain("GET /v1/new-capability");
  });
});
