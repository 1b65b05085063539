// What the link route suites share (core/links/routes*.integration.test.ts): the tokens, the
// routes' calls, and fresh ids and users, as each suite shares one database across its tests.
import type { TokenClaims } from "../../dev/support/tokens.ts";
import type { Harness } from "../support/harness.ts";

export const service: TokenClaims = { sub: "billing", role: "service" };
export const admin: TokenClaims = { sub: "root", role: "admin" };

export function linkRouteCalls(harness: () => Harness) {
  let counter = 0;
  /** A fresh external account id per test: the suite shares one database. */
  const fresh = (label: string) => `${label}-${++counter}`;
  return {
    fresh,
    // Fresh users too: a user holds one account per provider, so tests must not share them.
    freshUsers: () => ({ alice: { sub: fresh("alice") }, bob: { sub: fresh("bob") } }),
    put: (path: string, as: TokenClaims, body?: unknown) => harness().request(path, { method: "PUT", as, body }),
    get: (path: string, as: TokenClaims) => harness().request(path, { as }),
    del: (path: string, as: TokenClaims) => harness().request(path, { method: "DELETE", as }),
  };
}
