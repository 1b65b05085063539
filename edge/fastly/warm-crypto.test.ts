import { describe, expect, it } from "vitest";
import { warmWebCrypto } from "./warm-crypto.ts";

/** Algorithm names and formats in a SubtleCrypto call's arguments. */
const algorithmsIn = (args: unknown[]) =>
  args.flatMap((arg) => {
    if (typeof arg === "string") return [arg];
    if (arg && typeof arg === "object" && "name" in arg) {
      const { name, hash } = arg as { name: string; hash?: string };
      return hash ? [name, hash] : [name];
    }
    return [];
  });

/** crypto.subtle, noting each call's method and algorithms. */
function recordingSubtle(calls: string[]): SubtleCrypto {
  return new Proxy(crypto.subtle, {
    get(target, name) {
      const member = Reflect.get(target, name) as unknown;
      if (typeof member !== "function") return member;
      return (...args: unknown[]) => {
        calls.push([String(name), ...algorithmsIn(args)].join(" "));
        return member.apply(target, args);
      };
    },
  });
}

describe("warmWebCrypto", () => {
  it("runs what every authenticated request runs first: HMAC-SHA-256 (HS256) and SHA-256 (link keys)", async () => {
    const calls: string[] = [];
    await warmWebCrypto(recordingSubtle(calls));
    expect(calls).toEqual(["importKey raw HMAC SHA-256", "sign HMAC", "verify HMAC", "digest SHA-256"]);
  });
});
