import { describe, expect, it } from "vitest";
import { routedPath } from "./request-url.ts";

/** A request whose `url` is the target as sent, as a runtime that does not parse it hands it over. */
function asSent(url: string, method = "GET"): Request {
  const request = new Request("http://api.test/placeholder");
  Object.defineProperty(request, "url", { value: url });
  Object.defineProperty(request, "method", { value: method });
  return request;
}

describe("routedPath", () => {
  it("routes a target with dot segments or backslashes by the path the URL parser makes of it", () => {
    expect(routedPath(asSent("http://api.test/v1/../v1/assets"))).toBe("/v1/assets");
    expect(routedPath(asSent("http://api.test/v1/assets/%2e%2e", "TRACE"))).toBe("/v1");
    expect(routedPath(asSent("http://api.test/v1/./me\\links?a=%2e"))).toBe("/v1/me/links");
  });

  it("routes any other path as it is, one trailing slash dropped, percent-escapes decoded", () => {
    expect(routedPath(new Request("http://api.test/v1/assets/"))).toBe("/v1/assets");
    expect(routedPath(new Request("http://api.test/v1/links/git%20hub/1?x=1"))).toBe("/v1/links/git hub/1");
    expect(routedPath(new Request("http://api.test/"))).toBe("/");
  });
});
