// Idempotency-Key (IETF httpapi draft): the key names one logical request of a caller (its tenant
// and subject, as the draft scopes keys to the client that sent them); the fingerprint tells a
// retry of that request (same body) from a reuse of its key (other body). What every capability
// that takes the header reads, answers and declares of it.
import * as v from "valibot";
import { fieldValue } from "../http/field-value.ts";
import { ProblemError } from "../http/problem.ts";
import { sha256Hex } from "../lib/sha256.ts";
import type { HeaderSpec } from "../openapi/operations.ts";
import { MAX_INT, seconds, settingsGroup, withDefault } from "../settings/schema.ts";

export const IDEMPOTENCY_KEY_HEADER = "idempotency-key";
export const IDEMPOTENT_REPLAYED_HEADER = "idempotent-replayed";

export const DEFAULT_IDEMPOTENCY_KEY_TTL_SECONDS = 86_400;

/** How long an Idempotency-Key of a document or an asset names its create (make_interval: an int). */
export const IDEMPOTENCY_SETTINGS = settingsGroup(
  { IDEMPOTENCY_KEY_TTL_SECONDS: withDefault(seconds(1, MAX_INT), String(DEFAULT_IDEMPOTENCY_KEY_TTL_SECONDS)) },
  (values) => ({ idempotencyKeyTtlSeconds: values.IDEMPOTENCY_KEY_TTL_SECONDS }),
);

// 1–255 visible ASCII characters (0x21–0x7E): no spaces, no control characters.
export const IDEMPOTENCY_KEY = /^[\x21-\x7E]{1,255}$/;

/** Whose key it is: the tenant and the token's `sub`. Every statement on a key names both. */
export interface Caller {
  tenantId: string;
  subject: string;
}

/** A request that names a key: the key, the fingerprint of the request, and how long the key names it. */
export interface KeyedRequest {
  key: string;
  fingerprint: string;
  ttlSeconds: number;
}

/**
 * The request's key, taken verbatim (a quoted `"abc"` is the key `"abc"`), or undefined when the
 * header is absent. A present but unusable header is a malformed request (400): nothing is written.
 */
export function parseIdempotencyKey(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!IDEMPOTENCY_KEY.test(value)) {
    throw new ProblemError(
      400,
      "malformed_request",
      "Idempotency-Key must be 1 to 255 visible ASCII characters (no spaces).",
    );
  }
  return value;
}

/** What of a request's context the key is read from and kept on: not AppEnv, whose settings import this file's. */
interface KeyedContext {
  req: { raw: Request };
  set(name: "idempotencyKey", key: string): void;
}

/**
 * The Idempotency-Key of a request to a route that honours one, kept on the request: an answer of
 * unknown outcome (504) tells to retry with it only there, not where a key sent is ignored.
 */
export function honouredIdempotencyKey(c: KeyedContext): string | undefined {
  const key = parseIdempotencyKey(fieldValue(c.req.raw.headers, IDEMPOTENCY_KEY_HEADER));
  if (key !== undefined) c.set("idempotencyKey", key);
  return key;
}

/**
 * SHA-256 (hex) of the request's meaning, not its bytes: `parts` are the validated fields in a
 * fixed order, so key order, whitespace and an absent vs null optional field do not matter.
 */
export function requestFingerprint(parts: readonly unknown[]): Promise<string> {
  return sha256Hex(JSON.stringify(parts));
}

/**
 * The key, fingerprint and lifetime of a request that names a key; `parts` as for
 * requestFingerprint. After `ttlSeconds` a reuse of the key creates anew.
 */
export async function idempotencyOf(
  key: string | undefined,
  parts: readonly unknown[],
  ttlSeconds: number,
): Promise<KeyedRequest | undefined> {
  return key === undefined ? undefined : { key, fingerprint: await requestFingerprint(parts), ttlSeconds };
}

/** The answer to a key already used with another body: 422, nothing written. */
export const keyReused = () =>
  new ProblemError(
    422,
    "idempotency_key_reused",
    "This Idempotency-Key was already used with a different request body.",
  );

/** The headers of a 201 that answers an earlier request with the same key again. */
export const replayHeaders = (replayed: boolean): Record<string, string> =>
  replayed ? { [IDEMPOTENT_REPLAYED_HEADER]: "true" } : {};

/** The request header, as the OpenAPI document declares it. */
export const idempotencyKeyHeader: HeaderSpec = {
  description:
    "Names this request of this caller (tenant and user): a retry with the same body answers the first result, creating nothing.",
  schema: v.pipe(v.string(), v.regex(IDEMPOTENCY_KEY)),
};

/** The response header of a replayed 201, as the OpenAPI document declares it. */
export const replayedHeader: HeaderSpec = {
  description: "`true` when this answers an earlier request with the same key.",
};
