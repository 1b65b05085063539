// Production sign-in: the service trusts only the identity provider's keys (AUTH_JWKS_URL), its
// issuer and audience, and reads the tenant and role from the provider's own claim names.
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import type { RuntimeName } from "../../../dev/launchers/index.ts";
import { TEST_AUTH_SECRET } from "../../../dev/support/tokens.ts";
import { type Call, expectProblem, expectStatus, freshTenant } from "../client.ts";
import { type IdentityProvider, type KeySetPlanter, PROVIDER_ALGORITHMS } from "../identity-provider.ts";

const hs256 = async (claims: Record<string, unknown>, key: Uint8Array) =>
  `Bearer ${await new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).setSubject("alice").setExpirationTime("1h").sign(key)}`;

export function identityProviderCases(
  call: Call,
  runtime: RuntimeName,
  provider: () => IdentityProvider,
  planter: () => KeySetPlanter,
) {
  describe("sign-in with the identity provider's keys", () => {
    // First: the store holds the planted set, and no instance has fetched the provider's yet.
    it("a key set planted in the KV store signs nothing while the provider answers, even under the provider's own kid", async () => {
      const admin = { alg: "ES256", role: "admin" } as const;
      const own = await call("POST", "/v1/admin/links/resync", { as: await planter().bearer(admin) });
      expectProblem(own, 401, "unauthorized");
      expect(own.headers.get("www-authenticate")).toContain('error_description="unknown key"');
      const posing = await call("POST", "/v1/admin/links/resync", {
        as: await planter().bearer({ ...admin, posing: true }),
      });
      expectProblem(posing, 401, "unauthorized");
      expect(posing.headers.get("www-authenticate")).toContain('error_description="bad signature"');
      expectStatus(await call("POST", "/v1/admin/links/resync", { as: await provider().bearer(admin) }), 200);
    });

    for (const alg of PROVIDER_ALGORITHMS) {
      it(`a ${alg} token from the provider is accepted, its tenant taken from the provider's claim`, async () => {
        const org = freshTenant();
        const as = await provider().bearer({ alg, org });
        const created = await call("POST", "/v1/documents", { as, body: { contractId: "c" } });
        expectStatus(created, 201);
        expect(created.json.docNumber).toBe(1);
        expectStatus(await call("GET", `/v1/documents/${created.json.docNumber}`, { as }), 200);
        // The same number in another tenant is not this one's document.
        expectProblem(
          await call("GET", "/v1/documents/1", { as: await provider().bearer({ alg, org: freshTenant() }) }),
          404,
          "not_found",
        );
      });
    }

    it("the role comes from the provider's role claim", async () => {
      const admin = await provider().bearer({ alg: "ES256", role: "admin" });
      const user = await provider().bearer({ alg: "ES256", role: "user", claims: { role: "admin" } });
      expectStatus(await call("POST", "/v1/admin/links/resync", { as: admin }), 200);
      expectProblem(await call("POST", "/v1/admin/links/resync", { as: user }), 403, "forbidden");
    });

    // Each refused token, and the reason its challenge gives (RFC 6750's error_description).
    const refused: Array<[string, () => Promise<string>, string]> = [
      ["another issuer", () => provider().bearer({ alg: "RS256", iss: "https://someone-else.test/" }), "wrong issuer"],
      [
        "another API's admin token (same issuer, another audience)",
        () => provider().bearer({ alg: "RS256", aud: "another-api", role: "admin" }),
        "wrong audience",
      ],
      [
        "an ID token of another client (its client id in aud)",
        () => provider().bearer({ alg: "RS256", aud: "spa-client-id", claims: { nonce: "n", azp: "spa-client-id" } }),
        "wrong audience",
      ],
      [
        "an expired token",
        () => provider().bearer({ alg: "ES256", exp: Math.floor(Date.now() / 1000) - 3600 }),
        "expired",
      ],
      [
        "a tenant in tid instead of the provider's claim",
        () => provider().bearer({ alg: "RS256", claims: { "https://idp.test/org": undefined, tid: "acme" } }),
        "invalid sub, tenant or role claim",
      ],
      [
        "HS256 with the development secret (no AUTH_SECRET is set)",
        () => hs256({ tid: "acme" }, new TextEncoder().encode(TEST_AUTH_SECRET)),
        "algorithm not accepted",
      ],
      [
        "HS256 keyed with the provider's public key",
        () =>
          hs256({ "https://idp.test/org": "acme" }, new TextEncoder().encode(JSON.stringify(provider().publicJwks[0]))),
        "algorithm not accepted",
      ],
      [
        "HS256 keyed with the provider's whole JWKS",
        () =>
          hs256(
            { "https://idp.test/org": "acme" },
            new TextEncoder().encode(JSON.stringify({ keys: provider().publicJwks })),
          ),
        "algorithm not accepted",
      ],
    ];
    for (const [label, token, reason] of refused) {
      it(`${label}: 401 unauthorized, its challenge saying "${reason}"`, async () => {
        const answer = await call("GET", "/v1/me/links", { as: await token() });
        expectProblem(answer, 401, "unauthorized");
        expect(answer.headers.get("www-authenticate")).toBe(
          `Bearer realm="api", error="invalid_token", error_description="${reason}"`,
        );
      });
    }

    it("the provider's JWKS was fetched, and kept for later requests", () => {
      expect(provider().fetches()).toBeGreaterThan(0);
      // A Compute request may run in a fresh instance, whose memory starts empty: there the HTTP
      // cache in front of the jwks backend keeps it (in production), not the instance.
      if (runtime !== "fastly") expect(provider().fetches()).toBe(1);
    });
  });
}
