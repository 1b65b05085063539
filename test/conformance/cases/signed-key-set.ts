// The identity provider is down from the start and the deployments run with AUTH_JWKS_KV_SECRET:
// no instance ever fetched a key set, so each may verify only with the copy in its KV store. A set
// planted there without the secret signs nothing; the provider's set as the deployment itself
// keeps it (signed) verifies the provider's tokens through the outage.
import { describe, expect, it } from "vitest";
import { type Call, expectProblem, expectStatus } from "../client.ts";
import type { IdentityProvider, KeySetPlanter } from "../identity-provider.ts";

/** The deployments' AUTH_JWKS_KV_SECRET. */
export const KEY_SET_SECRET = "the conformance suite's key set MAC secret";

/** `callPlanted`: its store holds a set planted unsigned; `callSigned`: the provider's, signed. */
export function signedKeySetCases(
  callPlanted: Call,
  callSigned: Call,
  provider: () => IdentityProvider,
  planter: () => KeySetPlanter,
) {
  const links = (call: Call, as: string) => call("GET", "/v1/me/links", { as });

  describe("the key set in the KV store, signed with AUTH_JWKS_KV_SECRET, while the provider is down", () => {
    it("a set planted without the secret signs nothing, even under the provider's kid: 503 keys_unavailable", async () => {
      for (const posing of [false, true]) {
        const answer = await links(callPlanted, await planter().bearer({ alg: "ES256", posing }));
        expectProblem(answer, 503, "keys_unavailable");
      }
      // Nor does it stand in for the provider's own keys.
      expectProblem(await links(callPlanted, await provider().bearer({ alg: "ES256" })), 503, "keys_unavailable");
    });

    it("the provider's set, stored signed, verifies its tokens though the provider never answered", async () => {
      for (const alg of ["RS256", "ES256", "EdDSA"] as const) {
        expectStatus(await links(callSigned, await provider().bearer({ alg })), 200);
      }
      // The planted key posing under the provider's kid meets the provider's key: a bad signature.
      expectProblem(
        await links(callSigned, await planter().bearer({ alg: "ES256", posing: true })),
        401,
        "unauthorized",
      );
      expect(provider().fetches()).toBeGreaterThan(0);
    });
  });
}
