import type { JWTPayload } from "jose";
import { describe, expect, it } from "vitest";
import { rememberVerifiedTokens } from "./verified-tokens.ts";

/** A verifier that accepts tokens named "good-…" with the payload given, counting its calls. */
function countingVerifier(payloads: Record<string, JWTPayload>) {
  const calls: string[] = [];
  const verify = async (token: string) => {
    calls.push(token);
    const payload = payloads[token];
    if (!payload) throw new Error("invalid signature");
    return payload;
  };
  return { verify, calls };
}

describe("rememberVerifiedTokens", () => {
  let clock = 1_000_000_000_000;
  const now = () => clock;
  const inSeconds = (s: number) => Math.floor(clock / 1000) + s;

  it("checks a token's signature once, then answers its payload from memory", async () => {
    const { verify, calls } = countingVerifier({ "good-a": { sub: "a", exp: inSeconds(600) } });
    const remembered = rememberVerifiedTokens(verify, { now });
    for (let i = 0; i < 3; i++) expect(await remembered("good-a")).toEqual({ sub: "a", exp: inSeconds(600) });
    expect(calls).toEqual(["good-a"]);
  });

  it("never remembers a refusal", async () => {
    const { verify, calls } = countingVerifier({});
    const remembered = rememberVerifiedTokens(verify, { now });
    await expect(remembered("forged")).rejects.toThrow("invalid signature");
    await expect(remembered("forged")).rejects.toThrow("invalid signature");
    expect(calls).toEqual(["forged", "forged"]);
  });

  it("hands a remembered token that has expired, or is not valid yet, back to the full check", async () => {
    const exp = inSeconds(2);
    const nbf = inSeconds(5);
    const { verify, calls } = countingVerifier({ "good-a": { exp }, "good-b": { nbf } });
    const remembered = rememberVerifiedTokens(verify, { now });
    await remembered("good-a");
    clock += 2_000;
    // Expired: jose's check (which refuses it) runs again; this fake accepts, so the call is counted.
    await remembered("good-a");
    expect(calls).toEqual(["good-a", "good-a"]);
    await remembered("good-b");
    await remembered("good-b");
    expect(calls.filter((token) => token === "good-b")).toHaveLength(2);
  });

  it("hands a remembered token issued ahead back to the full check once the clock steps back past the leeway", async () => {
    const { verify, calls } = countingVerifier({ "good-a": { iat: inSeconds(30), exp: inSeconds(600) } });
    const remembered = rememberVerifiedTokens(verify, { now, leewaySeconds: 60 });
    await remembered("good-a");
    await remembered("good-a");
    expect(calls).toEqual(["good-a"]);
    clock -= 40_000; // the instance's clock is set back: iat is now 70 s ahead, past the leeway
    await remembered("good-a");
    expect(calls).toEqual(["good-a", "good-a"]);
    clock += 40_000;
  });

  it("hands a remembered token back to the full check at its exp to the millisecond, a fraction of a second included", async () => {
    const exp = inSeconds(2) + 0.5;
    const { verify, calls } = countingVerifier({ "good-a": { exp } });
    const remembered = rememberVerifiedTokens(verify, { now });
    await remembered("good-a");
    clock += 2_400;
    await remembered("good-a");
    expect(calls).toEqual(["good-a"]);
    clock += 200; // past exp, within the same whole second
    await remembered("good-a");
    expect(calls).toEqual(["good-a", "good-a"]);
  });

  it("checks the signature again after maxAgeMs, and forgets the oldest token beyond maxEntries", async () => {
    const { verify, calls } = countingVerifier({ "good-a": {}, "good-b": {}, "good-c": {} });
    const remembered = rememberVerifiedTokens(verify, { now, maxAgeMs: 1_000, maxEntries: 2 });
    await remembered("good-a");
    clock += 1_000;
    await remembered("good-a");
    expect(calls).toEqual(["good-a", "good-a"]);
    await remembered("good-b");
    await remembered("good-c"); // forgets good-a
    await remembered("good-b");
    await remembered("good-a");
    expect(calls).toEqual(["good-a", "good-a", "good-b", "good-c", "good-a"]);
  });

  it("checks the signature again when the clock steps back: a token remembered 'in the future' is no hit", async () => {
    const { verify, calls } = countingVerifier({ "good-a": { exp: inSeconds(7200) } });
    const remembered = rememberVerifiedTokens(verify, { now, maxAgeMs: 60_000 });
    await remembered("good-a");
    clock -= 3_600_000; // an hour back: the entry would otherwise be trusted for an hour and a minute
    await remembered("good-a");
    expect(calls).toEqual(["good-a", "good-a"]);
    clock += 3_600_000;
  });

  it("hands a remembered token back to the full check once it is older than the maximum age", async () => {
    const { verify, calls } = countingVerifier({ "good-a": { iat: inSeconds(-50) } });
    const remembered = rememberVerifiedTokens(verify, { now, maxTokenAgeSeconds: 55, leewaySeconds: 0 });
    await remembered("good-a");
    await remembered("good-a");
    expect(calls).toEqual(["good-a"]);
    clock += 6_000;
    await remembered("good-a");
    expect(calls).toEqual(["good-a", "good-a"]);
  });
});
