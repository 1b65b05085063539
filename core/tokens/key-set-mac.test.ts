// The stored key set signed with AUTH_JWKS_KV_SECRET: what one instance keeps, another takes; what
// anyone else writes to the store, with no MAC, another secret's or a copy altered to claim more
// (a later fetch time, other keys), no instance takes.
import { exportJWK, generateKeyPair, type JWK } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { createMemoryKv } from "../../edge/kv/memory.ts";
import type { Logger } from "../log.ts";
import type { KvCache } from "../ports/kv.ts";
import { parseSettings } from "../settings/settings.ts";
import { type KeySetMac, keySetMac } from "./key-set-mac.ts";
import { keySetKey, kvKeySetStore } from "./stored-key-set.ts";

const URL = "https://idp.example/jwks";
const SECRET = "a deployment secret of 32 bytes!";
const OTHER_SECRET = "another secret, of 32 bytes too!";

let jwk: JWK;
beforeAll(async () => {
  const { publicKey } = await generateKeyPair("ES256", { extractable: true });
  jwk = { ...(await exportJWK(publicKey)), kid: "current", alg: "ES256" };
});

const clock = 1_000_000;
let warnings: string[] = [];
const logger: Logger = { log: (level, event) => void (level === "warn" && warnings.push(event)) };

/** An instance's view of the store; each reads at once (no throttle carried between them). */
const instance = (kv: KvCache, mac: KeySetMac | undefined) =>
  kvKeySetStore(kv, {
    url: URL,
    freshMs: 600_000,
    lifetimeMs: 86_400_000,
    readEveryMs: 1_000,
    timeoutMs: 50,
    mac,
    logger,
    now: () => clock,
  });

/** What one instance kept under `secret`, as the store holds it. */
async function keptUnder(secret: string | undefined) {
  const kv = createMemoryKv(() => clock);
  await instance(kv, secret === undefined ? undefined : keySetMac(secret)).keep({
    jwks: { keys: [jwk] },
    keys: async () => ({}) as CryptoKey,
    fetchedAt: clock,
  });
  const key = await keySetKey(URL);
  return { kv, key, stored: JSON.parse((await kv.get(key))!) as Record<string, unknown> };
}

const readBy = async (kv: KvCache, secret: string | undefined) =>
  instance(kv, secret === undefined ? undefined : keySetMac(secret)).read(clock);

describe("the stored key set signed with AUTH_JWKS_KV_SECRET", () => {
  it("is stored with its MAC and taken by another instance holding the secret", async () => {
    const { kv, stored } = await keptUnder(SECRET);
    expect(stored).toEqual({ url: URL, fetchedAt: clock, jwks: { keys: [jwk] }, mac: expect.any(String) });
    expect((await readBy(kv, SECRET))?.jwks).toEqual({ keys: [jwk] });
  });

  it("an unsigned copy, or one signed under another secret, is refused with a warning", async () => {
    for (const secret of [undefined, OTHER_SECRET]) {
      warnings = [];
      const { kv } = await keptUnder(secret);
      expect(await readBy(kv, SECRET)).toBeUndefined();
      expect(warnings).toEqual(["jwks_store_unsigned"]);
    }
  });

  it("a signed copy altered to claim more (a later fetch, other keys) or with a garbled MAC is refused", async () => {
    const { publicKey } = await generateKeyPair("ES256", { extractable: true });
    const planted = { ...(await exportJWK(publicKey)), kid: "current", alg: "ES256" };
    const alterations: Record<string, unknown>[] = [
      { fetchedAt: clock + 86_400_000 },
      { jwks: { keys: [planted] } },
      { jwks: { keys: [jwk, planted] } },
      { mac: "not base64url!" },
      { mac: "" },
      { mac: 42 },
    ];
    for (const altered of alterations) {
      const { kv, key, stored } = await keptUnder(SECRET);
      await kv.put(key, JSON.stringify({ ...stored, ...altered }), { ttlSeconds: 600 });
      expect(await readBy(kv, SECRET), JSON.stringify(altered)).toBeUndefined();
    }
  });

  it("without the secret, signed and unsigned copies are both taken, as before it existed", async () => {
    for (const secret of [undefined, SECRET]) {
      const { kv } = await keptUnder(secret);
      expect((await readBy(kv, undefined))?.jwks).toEqual({ keys: [jwk] });
    }
  });

  it("is the setting AUTH_JWKS_KV_SECRET (its bounds: test/support/setting-bounds.ts)", () => {
    const development = { AUTH_SECRET: "s".repeat(32) };
    expect(parseSettings({ ...development, AUTH_JWKS_KV_SECRET: SECRET }).jwksKvSecret).toBe(SECRET);
    expect(parseSettings(development).jwksKvSecret).toBeUndefined();
  });
});
