// The conformance suite's only way in: HTTP to a running server. No app, database or KV handle.
import { expect } from "vitest";
import { bearer, type TokenClaims } from "../../dev/support/tokens.ts";
import { parseJson } from "../support/problems.ts";
import { requestBody } from "../support/request-body.ts";

interface CallOptions {
  /** Claims of the caller's token (default alice@acme); a string is sent as the whole header; null: none. */
  as?: TokenClaims | string | null;
  /** A plain object is sent as JSON; a string or bytes as-is (set content-type yourself). */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: any;
}

export type Call = (method: string, path: string, options?: CallOptions) => Promise<Answer>;

/** Called with every request and its answer (e.g. to check it against the API's document). */
export type AnswerCheck = (exchange: { method: string; url: string } & Omit<Answer, "json">) => Promise<void>;

/** A client bound to the server at `baseUrl()` (read per call: it is known only once started). */
export function httpClient(baseUrl: () => string, checkAnswer?: AnswerCheck): Call {
  return async (method, path, { as = {}, body, headers = {} } = {}) => {
    const sent = new Headers(headers);
    // A fresh connection per request: a kept-alive socket that the local server (workerd, Deno)
    // closes as idle just as the next request reuses it fails that request in undici, a race of
    // the test client and no behaviour of the API.
    sent.set("connection", "close");
    if (typeof as === "string") sent.set("authorization", as);
    else if (as !== null) sent.set("authorization", (await bearer(as)).authorization);
    const payload = requestBody(body, sent);
    const url = new URL(path, baseUrl());
    const response = await fetch(url, { method, headers: sent, body: payload, redirect: "manual" });
    const text = await response.text();
    await checkAnswer?.({ method, url: url.href, status: response.status, headers: response.headers, text });
    return { status: response.status, headers: response.headers, text, json: parseJson(text) };
  };
}

export { expectProblemAnswer as expectProblem } from "../support/problems.ts";

/** Asserts the status, showing the body when it differs. */
export function expectStatus(answer: Answer, status: number): void {
  expect(answer.status, `${answer.status} ${answer.text}`).toBe(status);
}

/** A name no other case (or earlier run against the same database) uses. */
export const unique = (prefix: string) => `${prefix}-${crypto.randomUUID().slice(0, 8)}`;

/** A tenant of its own: per-tenant sequences (documents) start from 1 there. */
export const freshTenant = () => `t${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
