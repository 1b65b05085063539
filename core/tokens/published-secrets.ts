// HS256 secrets anyone can read in this repository: its tests, examples and tools sign with them.
// A deployment that signed with one would take tokens anyone can mint, for any tenant and role,
// so AUTH_SECRET_SCOPE=deployment refuses them (test/published-secrets.test.ts finds every secret
// written in the repository and checks that it is refused).
export const PUBLISHED_SECRETS: ReadonlySet<string> = new Set([
  "test-secret-that-is-at-least-32-bytes-long!",
  "a-development-secret-of-32-bytes-or-more",
  "a-secret-for-an-app-that-serves-no-tokens",
  "unit-test-secret-with-at-least-32-bytes",
  "another-secret-of-at-least-32-bytes!",
  "another-secret-that-is-at-least-32-bytes!",
  "a-different-secret-of-at-least-32-bytes",
  "another-secret-that-is-also-32-bytes!!",
]);

/**
 * Fewer distinct characters than this and a secret is a placeholder ("s".repeat(32), "x"s),
 * as the repository's tests write them: a random secret of 32 bytes or more has far more.
 */
export const MIN_DISTINCT_SECRET_CHARACTERS = 8;

/** Whether `secret` is one anyone may know: written in this repository, or a placeholder. */
export const isPublishedSecret = (secret: string): boolean =>
  PUBLISHED_SECRETS.has(secret) || new Set(secret).size < MIN_DISTINCT_SECRET_CHARACTERS;
