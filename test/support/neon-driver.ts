// The Neon driver (@neondatabase/serverless) used directly, as any Neon client would: for the
// tests that hold the local endpoint to what the driver expects of Neon's proxy.
import { NeonDbError } from "@neondatabase/serverless";
import { routeNeonRequests } from "../../edge/neon/endpoints.ts";

/** Routes the driver's requests for `databaseUrl` to `endpoint`; answers `databaseUrl`, for `neon()`. */
export function routeNeonDriver(databaseUrl: string, endpoint: string): string {
  routeNeonRequests(databaseUrl, { endpoint });
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
