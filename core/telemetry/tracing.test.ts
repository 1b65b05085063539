// What a span says of a request, as OpenTelemetry's HTTP conventions name it.
import { describe, expect, it } from "vitest";
import { requestAttributes, spanMethod } from "./tracing.ts";

describe("a server span's request attributes", () => {
  it.each([
    [
      "GET",
      "https://api.example.com/v1/links/github/1",
      { "http.request.method": "GET", "url.scheme": "https", "server.address": "api.example.com" },
    ],
    [
      "PUT",
      "http://127.0.0.1:8787/v1/assets/chair-42?x=1",
      { "http.request.method": "PUT", "url.scheme": "http", "server.address": "127.0.0.1", "server.port": 8787 },
    ],
    // The scheme's own port is no server.port; a host is case-insensitive; an IPv6 address has no brackets.
    ["GET", "https://API.example.com:443/healthz", { "url.scheme": "https", "server.address": "api.example.com" }],
    ["GET", "http://[::1]:8787/healthz", { "server.address": "::1", "server.port": 8787 }],
    ["GET", "http://[::1]/healthz", { "server.address": "::1" }],
  ])("%s %s", (method, url, expected) => {
    const attributes = requestAttributes(new Request(url, { method }));
    expect(attributes).toMatchObject(expected);
    if (!("server.port" in expected)) expect(attributes).not.toHaveProperty("server.port");
  });

  it("holds no path, query or id: the route stands for them", () => {
    const attributes = requestAttributes(new Request("https://api.example.com/v1/assets/chair-42?limit=1"));
    expect(JSON.stringify(attributes)).not.toMatch(/chair-42|limit|v1/);
  });

  it("records a method the conventions do not know as _OTHER, named HTTP, its own name beside it", () => {
    const attributes = requestAttributes(new Request("https://api.example.com/v1/documents", { method: "PROPFIND" }));
    expect(attributes).toMatchObject({
      "http.request.method": "_OTHER",
      "http.request.method_original": "PROPFIND",
    });
    expect(spanMethod(attributes)).toBe("HTTP");
    for (const method of ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]) {
      const known = requestAttributes(new Request("https://api.example.com/", { method }));
      expect([known["http.request.method"], spanMethod(known)]).toEqual([method, method]);
      expect(known).not.toHaveProperty("http.request.method_original");
    }
  });
});
