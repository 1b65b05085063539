// Suites that run the Fastly service need Viceroy, Fastly's local runtime (required-tool.ts).
import { findViceroy, VICEROY_MISSING } from "../launchers/viceroy.ts";
import { describeNeeding } from "./required-tool.ts";

export const viceroyInstalled = (): boolean => findViceroy() !== undefined;

/** `describe` for suites that need Viceroy: skipped with a warning without it, failing in CI. */
export function describeWithViceroy(name: string, fn: () => void): void {
  describeNeeding("Viceroy", viceroyInstalled() ? undefined : VICEROY_MISSING, name, fn);
}
