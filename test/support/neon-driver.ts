// The real Neon driver (@neondatabase/serverless), for the tests that hold the local endpoint and
// this project's own client (edge/neon/neon-http.ts) to it. It is a dev dependency: nothing that
// deploys imports it.
import { NeonDbError, neonConfig } from "@neondatabase/serverless";
import { expect } from "vitest";
import { ERROR_FIELDS, NeonQueryError } from "../../edge/neon/neon-http.ts";

// The driver's endpoint setting is process-wide: once routed here, by the connection string's host
// and port, each database reaches its own endpoint, and an unrouted one reaches nothing.
const endpoints = new Map<string, string>();

/** Routes the driver's requests for `databaseUrl` to `endpoint`; answers `databaseUrl`, for `neon()`. */
export function routeNeonDriver(databaseUrl: string, endpoint: string): string {
  neonConfig.fetchEndpoint = (host, port) => endpoints.get(`${host}:${port}`) ?? "http://127.0.0.1:9/unrouted";
  const { hostname, port } = new URL(databaseUrl);
  endpoints.set(`${hostname}:${port}`, endpoint);
  return databaseUrl;
}

/** The Neon driver's refusal of `promise`; fails the test if it resolves or fails otherwise. */
export async function neonFailure(promise: Promise<unknown>): Promise<NeonDbError> {
  const outcome = await promise.then(
    () => new Error("expected a rejection"),
    (error: unknown) => error,
  );
  if (!(outcome instanceof NeonDbError)) throw outcome;
  return outcome;
}

/** One request as a Neon client sent it. */
export interface SentRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** A `fetch` that notes every request in `sent`, then hands it to `send`. */
export function recordingFetch(sent: SentRequest[], send: typeof fetch = fetch): typeof fetch {
  return (input, init = {}) => {
    sent.push({
      method: init.method ?? "GET",
      url: String(input),
      headers: Object.fromEntries(new Headers(init.headers)),
      body: String(init.body),
    });
    return send(input, init);
  };
}

/** How a call ended: with its value, or with what it threw. */
export type Outcome = { value: unknown } | { error: unknown };

export const outcomeOf = (promise: Promise<unknown>): Promise<Outcome> =>
  promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );

/**
 * This project's client ended as the driver did: with the same values, or with an error of the
 * same message and the same Postgres fields (NeonQueryError for the driver's NeonDbError), or the
 * very same kind of error the driver let through (a body that is not JSON).
 */
export function expectSameOutcome(ours: Outcome, theirs: Outcome): void {
  if ("value" in theirs) return void expect(ours).toStrictEqual(theirs);
  expect(ours).toHaveProperty("error");
  const [error, expected] = [(ours as { error: Error }).error, theirs.error as Error];
  expect(error.message).toBe(expected.message);
  if (!(expected instanceof NeonDbError)) return void expect(error.constructor).toBe(expected.constructor);
  expect(error).toBeInstanceOf(NeonQueryError);
  const fieldsOf = (e: object) => ERROR_FIELDS.map((name) => [name, (e as Record<string, unknown>)[name]]);
  expect(fieldsOf(error)).toStrictEqual(fieldsOf(expected));
  expect(String((error as NeonQueryError).sourceError)).toBe(String(expected.sourceError));
}

const APPLICATION_NAME = /([?&]application_name=)[^&]*/;

/**
 * The same requests, but for the application name the connection string carries: the driver
 * names its package there, this project itself (unless the connection string names one).
 */
export function expectSameRequests(ours: SentRequest[], theirs: SentRequest[]): void {
  const unnamed = (sent: SentRequest) => ({
    ...sent,
    headers: {
      ...sent.headers,
      "neon-connection-string": sent.headers["neon-connection-string"]?.replace(APPLICATION_NAME, "$1…"),
    },
  });
  expect(ours.map(unnamed)).toStrictEqual(theirs.map(unnamed));
}
