import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { kvKeyProblem } from "../../test/support/fake-fastly-kv-store.ts";
import { decodeKvKey, encodeKvKey, fastlyKey } from "./fastly-keys.ts";

// Keys built from the characters Fastly treats specially, so the properties meet them often.
const awkwardKey = fc
  .array(
    fc.constantFrom(
      ".",
      "..",
      "/",
      "#",
      ";",
      "?",
      "^",
      "|",
      "%",
      "\r",
      "\n",
      " ",
      "\u0000",
      "\ufffe",
      "a",
      "é",
      "😀",
      ".well-known/acme-challenge/",
    ),
  )
  .map((parts) => parts.join(""));
const anyKey = fc.oneof(awkwardKey, fc.string({ unit: "grapheme" }));

describe("Fastly KV keys", () => {
  it("escapes what Fastly refuses", () => {
    expect(encodeKvKey("a#b;c?d^e|f")).toBe("a%23b%3Bc%3Fd%5Ee%7Cf");
    expect(encodeKvKey("..")).toBe("%2E.");
    expect(encodeKvKey("a/./b/../c")).toBe("a/%2E%2Fb/%2E.%2Fc");
    expect(encodeKvKey("a./b")).toBe("a.%2Fb");
    expect(encodeKvKey(".well-known/acme-challenge/x")).toBe("%2Ewell-known/acme-challenge/x");
    expect(encodeKvKey("line\r\nbreak")).toBe("line%0D%0Abreak");
    expect(encodeKvKey("100%")).toBe("100%25");
  });

  it("leaves ordinary keys alone (the link keys are hex digests)", () => {
    expect(encodeKvKey("links/v1/0123abcd")).toBe("links/v1/0123abcd");
    expect(encodeKvKey("a.b/c.d")).toBe("a.b/c.d");
  });

  it("every non-empty key escapes to one Fastly accepts, and back", () => {
    fc.assert(
      fc.property(
        anyKey.filter((k) => k !== ""),
        (key) => {
          const encoded = encodeKvKey(key);
          if (new TextEncoder().encode(encoded).length <= 1024) expect(kvKeyProblem(encoded)).toBeUndefined();
          expect(decodeKvKey(encoded)).toBe(key);
        },
      ),
    );
  });

  it("a prefix escapes to a prefix, so listing by prefix still finds the keys", () => {
    fc.assert(
      fc.property(anyKey, anyKey, (prefix, rest) => {
        expect(encodeKvKey(prefix + rest).startsWith(encodeKvKey(prefix))).toBe(true);
      }),
    );
  });

  it("refuses keys no escape can save: empty, or over 1024 bytes once escaped", () => {
    expect(() => fastlyKey("")).toThrow(RangeError);
    expect(() => fastlyKey("#".repeat(342))).toThrow(/1024 bytes/);
    expect(fastlyKey("x".repeat(1024))).toHaveLength(1024);
    // Three UTF-8 bytes each: 341 fit in 1024 bytes, 342 do not.
    expect(fastlyKey("€".repeat(341))).toHaveLength(341);
    expect(() => fastlyKey("€".repeat(342))).toThrow(/1024 bytes/);
  });
});
