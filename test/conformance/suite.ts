// The conformance suite: every route and status of docs/API.md, over HTTP, against a server
// already running. Every runtime runs exactly these cases; a runtime that differs fails.
import type { RuntimeName } from "../../dev/launchers/index.ts";
import { apiReferenceCases } from "./cases/api-reference.ts";
import { assetImportCases } from "./cases/asset-import.ts";
import { assetCases } from "./cases/assets.ts";
import { basicCases } from "./cases/basics.ts";
import { conventionCases } from "./cases/conventions.ts";
import { corsCases, corsOffCases } from "./cases/cors.ts";
import { documentCases } from "./cases/documents.ts";
import { headCases } from "./cases/head.ts";
import { linkCases } from "./cases/links.ts";
import { loginRefusedCases } from "./cases/login-refused.ts";
import { malformedHttpCases } from "./cases/malformed-http.ts";
import { openApiCases } from "./cases/openapi.ts";
import { preconditionCases } from "./cases/preconditions.ts";
import { queryCases } from "./cases/query.ts";
import { serverTimingCases, serverTimingOffCases } from "./cases/server-timing.ts";
import { unavailableCases } from "./cases/unavailable.ts";
import { linkPreconditionCases, unversionedPreconditionCases } from "./cases/unversioned-preconditions.ts";
import { httpClient } from "./client.ts";
import { conformsToServedDocument } from "./openapi-check.ts";

/** Registers every case against the server at `baseUrl()` (called once it is started). */
export function conformanceSuite(runtime: RuntimeName, baseUrl: () => string): void {
  // Every answer of every case is checked against the document the server serves.
  const call = httpClient(baseUrl, conformsToServedDocument(baseUrl));
  basicCases(call, runtime);
  conventionCases(call, runtime, baseUrl);
  malformedHttpCases(runtime, baseUrl);
  linkCases(call);
  assetCases(call);
  assetImportCases(call);
  preconditionCases(call, baseUrl);
  unversionedPreconditionCases(call);
  linkPreconditionCases(call);
  documentCases(call);
  headCases(call);
  openApiCases(call);
  serverTimingCases(call, runtime);
  corsCases(call, baseUrl);
  queryCases(call, baseUrl);
  apiReferenceCases(call);
}

/** Registers the cases of a server whose database cannot be reached. */
export function unavailableSuite(runtime: RuntimeName, baseUrl: () => string): void {
  const call = httpClient(baseUrl, conformsToServedDocument(baseUrl));
  unavailableCases(call, runtime);
  serverTimingOffCases(call);
  corsOffCases(call);
}

/** Registers the cases of a server whose database refuses its login. */
export function loginRefusedSuite(baseUrl: () => string): void {
  loginRefusedCases(httpClient(baseUrl, conformsToServedDocument(baseUrl)));
}
