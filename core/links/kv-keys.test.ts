import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { linkKey, tenantKeyPrefix } from "./kv-keys.ts";
import { normalizeTarget } from "./link.ts";

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

// Fastly KV Store key rules (FACTS.md); Workers KV allows 512 bytes.
const FASTLY_FORBIDDEN = /[#;?^|\n\r]/;
function legalOnEveryStore(key: string): boolean {
  return (
    key.length > 0 &&
    new TextEncoder().encode(key).length <= 512 &&
    !FASTLY_FORBIDDEN.test(key) &&
    key !== "." &&
    key !== ".." &&
    !key.startsWith(".well-known/acme-challenge/")
  );
}

const validTarget = fc.record({
  provider: fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,63}$/),
  externalAccountId: fc
    .string({ unit: "grapheme", minLength: 1, maxLength: 256 })
    .filter((id) => !["", ".", ".."].includes(id.trim()) && !/[\p{Cc}\p{Cs}]/u.test(id)),
});

describe("linkKey", () => {
  it("is the tenant's prefix plus SHA-256 hex of provider, newline, external id", async () => {
    expect(await linkKey("acme", { provider: "github", externalAccountId: "123456" })).toBe(
      `links/v2/acme/${sha256("github\n123456")}`,
    );
    expect(tenantKeyPrefix("acme")).toBe("links/v2/acme/");
  });

  it("never gives two tenants the same key, nor one tenant's key under another's prefix", async () => {
    const target = { provider: "github", externalAccountId: "42" };
    const tenants = ["acme", "acme-2", "a", "A", "acme_", "Z-9"];
    const keys = await Promise.all(tenants.map((tenant) => linkKey(tenant, target)));
    expect(new Set(keys).size).toBe(tenants.length);
    for (const [index, tenant] of tenants.entries()) {
      const others = keys.filter((_, other) => other !== index);
      expect(others.some((key) => key.startsWith(tenantKeyPrefix(tenant)))).toBe(false);
    }
  });

  it("is a legal key on every store for any valid target, however hostile the id", async () => {
    const hostile = ["#?;^|", "../..", ".", "a/b/c", "é".repeat(256), "😀".repeat(256), ".well-known/acme-challenge/x"];
    for (const externalAccountId of hostile) {
      const key = await linkKey("acme", { provider: "github", externalAccountId });
      expect(key).toMatch(/^links\/v2\/acme\/[0-9a-f]{64}$/);
      expect(legalOnEveryStore(key)).toBe(true);
    }
    await fc.assert(
      fc.asyncProperty(validTarget, async (target) => {
        const key = await linkKey("acme", normalizeTarget(target));
        expect(key).toMatch(/^links\/v2\/acme\/[0-9a-f]{64}$/);
        expect(legalOnEveryStore(key)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("gives every spelling of one account the same key, and different accounts different keys", async () => {
    const canonical = await linkKey("acme", { provider: "github", externalAccountId: "42" });
    for (const spelling of [
      { provider: "GitHub", externalAccountId: "42" },
      { provider: " GITHUB ", externalAccountId: "  42\t" },
    ]) {
      expect(await linkKey("acme", normalizeTarget(spelling))).toBe(canonical);
    }
    expect(await linkKey("acme", { provider: "github", externalAccountId: "420" })).not.toBe(canonical);
    expect(await linkKey("acme", { provider: "gitlab", externalAccountId: "42" })).not.toBe(canonical);
    // The separator cannot be forged: a provider never contains "\n".
    expect(await linkKey("acme", { provider: "git", externalAccountId: "hub\n42" })).not.toBe(canonical);
  });

  it("hashes a recently used target once, whichever tenant asks", async () => {
    const digest = vi.spyOn(crypto.subtle, "digest");
    try {
      const target = { provider: "github", externalAccountId: "hashed-once" };
      const keys = [await linkKey("acme", target), await linkKey("other", target), await linkKey("acme", target)];
      expect(digest).toHaveBeenCalledTimes(1);
      expect(keys).toEqual([
        `links/v2/acme/${sha256("github\nhashed-once")}`,
        `links/v2/other/${sha256("github\nhashed-once")}`,
        keys[0],
      ]);
    } finally {
      digest.mockRestore();
    }
  });
});
