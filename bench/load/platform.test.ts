import { describe, expect, it } from "vitest";
import { localTarget, platformFromHeaders, platformsNote } from "./platform.ts";

const named = (headers: Record<string, string>) => platformFromHeaders(new Headers(headers));

describe("the platform a deployment's headers name", () => {
  it("is Cloudflare from cf-ray or its server header", () => {
    expect(named({ "cf-ray": "8f1c2a3b4c5d6e7f-LHR" })).toBe("Cloudflare");
    expect(named({ server: "cloudflare" })).toBe("Cloudflare");
  });

  it("is Fastly from a fastly-* header or a cache-… x-served-by", () => {
    expect(named({ "fastly-debug-digest": "abc" })).toBe("Fastly");
    expect(named({ "x-served-by": "cache-lhr7380-LHR, cache-iad-kiad7000123-IAD" })).toBe("Fastly");
    expect(named({ "x-fastly-request-id": "f00" })).toBe("Fastly");
  });

  it("is Deno Deploy from its server header", () => {
    expect(named({ server: "deno/gcp-europe-west2" })).toBe("Deno Deploy");
  });

  it("is unknown otherwise, an x-cache alone included (other CDNs send it too)", () => {
    expect(named({ server: "nginx", "x-cache": "HIT" })).toBe("unknown");
    expect(named({ "x-served-by": "web-1" })).toBe("unknown");
  });
});

describe("the targets the bench starts", () => {
  it("name the Fastly one for what it is: js-compute wasm on Viceroy", () => {
    expect(localTarget("fastly")).toEqual({
      target: "fastly-viceroy",
      platform: "js-compute wasm on Viceroy, Fastly's local runtime — not Fastly's edge",
      billedAs: "Fastly",
    });
    expect(localTarget("deno").target).toBe("deno");
  });

  it("are listed with their platforms in one note", () => {
    expect(platformsNote([localTarget("node"), { target: "edge" }])).toBe(
      "Targets: node = Node.js, local; edge = unknown",
    );
  });
});
