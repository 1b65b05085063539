// The conformance suite: every route and status of docs/API.md, over HTTP, against a server
// already running. Every runtime runs exactly these cases; a runtime that differs fails.
import type { RuntimeName } from "../../dev/launchers/index.ts";
import { assetCases } from "./cases/assets.ts";
import { basicCases } from "./cases/basics.ts";
import { conventionCases } from "./cases/conventions.ts";
import { documentCases } from "./cases/documents.ts";
import { linkCases } from "./cases/links.ts";
import { unavailableCases } from "./cases/unavailable.ts";
import { httpClient } from "./client.ts";

/** Registers every case against the server at `baseUrl()` (called once it is started). */
export function conformanceSuite(runtime: RuntimeName, baseUrl: () => string): void {
  const call = httpClient(baseUrl);
  basicCases(call, runtime);
  conventionCases(call, runtime, baseUrl);
  linkCases(call);
  assetCases(call);
  documentCases(call);
}

/** Registers the cases of a server whose database cannot be reached. */
export function unavailableSuite(runtime: RuntimeName, baseUrl: () => string): void {
  unavailableCases(httpClient(baseUrl), runtime);
}
