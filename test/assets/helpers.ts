// Shared by the asset test suites.
import { expect } from "vitest";
import type { Harness, RequestOptions } from "../support/harness.ts";

export const OTHER_TENANT = { sub: "mallory", tid: "globex" };

/** What this API's strong ETags look like: a random UUID's 32 hex digits, quoted. */
export const STRONG_ETAG = /^"[0-9a-f]{32}"$/;

interface Created {
  id: string;
  etag: string;
}

let counter = 0;
/** A fresh id per call, so tests sharing one database never collide. */
export const freshId = (prefix = "asset") => `${prefix}-${++counter}-${Math.random().toString(36).slice(2, 8)}`;

/** Creates a draft asset through the API (PUT with If-None-Match: *). */
export async function createAsset(
  h: Harness,
  fields: { name: string; material: string } = { name: "Chair", material: "oak" },
  as: RequestOptions["as"] = {},
  id = freshId(),
): Promise<Created> {
  const response = await h.request(`/v1/assets/${id}`, {
    method: "PUT",
    as,
    body: fields,
    headers: { "if-none-match": "*" },
  });
  expect(response.status).toBe(201);
  return { id, etag: response.headers.get("etag")! };
}

export async function getAsset(h: Harness, id: string, as: RequestOptions["as"] = {}) {
  const response = await h.request(`/v1/assets/${id}`, { as });
  return {
    status: response.status,
    etag: response.headers.get("etag"),
    body: response.status === 200 ? await response.json() : null,
  };
}

export function patchAsset(
  h: Harness,
  id: string,
  ifMatch: string | null,
  body: unknown,
  as: RequestOptions["as"] = {},
) {
  const headers: Record<string, string> = ifMatch === null ? {} : { "if-match": ifMatch };
  return h.request(`/v1/assets/${id}`, { method: "PATCH", as, body, headers });
}

/** Runs `action` and answers how many SQL statements reached the database meanwhile. */
export async function statementsOf<T>(
  h: Harness,
  action: () => Promise<T>,
): Promise<{ result: T; statements: number }> {
  const before = h.stack.endpoint.statements();
  const result = await action();
  return { result, statements: h.stack.endpoint.statements() - before };
}
