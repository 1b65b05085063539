import { NeonDbError } from "@neondatabase/serverless";

/** The Neon driver's refusal of `promise`; fails the test if it resolves or fails otherwise. */
export async function neonFailure(promise: Promise<unknown>): Promise<NeonDbError> {
  const outcome = await promise.then(
    () => new Error("expected a rejection"),
    (error: unknown) => error,
  );
  if (!(outcome instanceof NeonDbError)) throw outcome;
  return outcome;
}
