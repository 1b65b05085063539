// The route table (test/support/routes.ts) is the app's route list: a route added to the app
// without an entry fails here, and with it every cross-cutting suite covers the route.
import { describe, expect, it } from "vitest";
import { appWithoutDatabase } from "../dev/support/app-without-database.ts";
import { appRouteKeys, parametersOf, ROUTES, routes } from "./support/routes.ts";

const app = appWithoutDatabase();

describe("the route table", () => {
  it("lists exactly the app's routes", () => {
    expect(Object.keys(ROUTES).sort()).toEqual(appRouteKeys(app));
  });

  it.each(routes.map((route) => [route.key, route] as const))("%s: its example matches the pattern", (_key, route) => {
    const pattern = new RegExp(`^${route.pattern.replace(/:[A-Za-z]+/g, "[^/]+")}$`);
    expect(route.example.path.split("?")[0]).toMatch(pattern);
    expect(route.example.method ?? "GET").toBe(route.method);
    expect(parametersOf(route).length).toBe((route.pattern.match(/:/g) ?? []).length);
  });

  it("sees a route the table lacks", () => {
    const grown = appWithoutDatabase();
    grown.get("/v1/new-capability", (c) => c.text("new"));
    expect(appRouteKeys(grown)).toContain("GET /v1/new-capability");
    expect(Object.keys(ROUTES)).not.toContain("GET /v1/new-capability");
  });
});
