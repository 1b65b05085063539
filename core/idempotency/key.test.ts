import { describe, expect, it } from "vitest";
import { ProblemError } from "../http/problem.ts";
import { parseIdempotencyKey, requestFingerprint } from "./key.ts";

describe("parseIdempotencyKey", () => {
  it("is undefined when the header is absent", () => {
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
  });

  it.each(["a", "8e03978e-40d5-43e8-bc93-6894a57f9324", '"quoted"', "!~", "x".repeat(255)])(
    "keeps %s verbatim",
    (key) => {
      expect(parseIdempotencyKey(key)).toBe(key);
    },
  );

  it.each([
    ["empty", ""],
    ["spaces and tabs alone", " \t "],
    ["too long", "x".repeat(256)],
    ["a space", "a b"],
    ["a tab", "a\tb"],
    ["non-ASCII", "clé"],
    ["DEL", "a\x7F"],
  ])("refuses %s with 400 malformed_request", (_why, key) => {
    const error = catchError(() => parseIdempotencyKey(key));
    expect(error).toBeInstanceOf(ProblemError);
    expect(error).toMatchObject({ status: 400, code: "malformed_request" });
  });
});

describe("requestFingerprint", () => {
  it("is the SHA-256 of the canonical JSON, in hex", async () => {
    // Checked against an independent implementation (Node's crypto), not against itself.
    expect(await requestFingerprint(["c-1", null])).toBe(await sha256Hex('["c-1",null]'));
    expect(await requestFingerprint(["c-1", "Ünïcode ✓"])).toBe(await sha256Hex('["c-1","Ünïcode ✓"]'));
  });

  it("differs when any part differs, including null vs empty text", async () => {
    const prints = await Promise.all([
      requestFingerprint(["c-1", null]),
      requestFingerprint(["c-1", ""]),
      requestFingerprint(["c-2", null]),
      requestFingerprint(["c-1", "Title"]),
    ]);
    expect(new Set(prints).size).toBe(prints.length);
  });

  it("cannot be fooled by moving text between parts", async () => {
    expect(await requestFingerprint(["ab", "c"])).not.toBe(await requestFingerprint(["a", "bc"]));
  });
});

async function sha256Hex(text: string): Promise<string> {
  const { createHash } = await import("node:crypto");
  return createHash("sha256").update(text).digest("hex");
}

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected an error");
}
