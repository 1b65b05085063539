// A web app on an origin of its own runs the README's tour against the API with the browser's
// fetch, and answers what it saw, step by step, for the test to check.
import { type ApiAnswer, fetchApi } from "./api.ts";

export interface TourConfig {
  api: string;
  alice: string;
  bob: string;
  /** Names of this run's own (the database may be reused). */
  accountId: string;
  assetId: string;
  idempotencyKey: string;
}

export type TourAnswers = Record<string, ApiAnswer>;

async function tour(config: TourConfig): Promise<TourAnswers> {
  const call = fetchApi(config.api);
  const { alice, bob } = config;
  const link = `/v1/links/github/${config.accountId}`;
  const asset = `/v1/assets/${config.assetId}`;
  const seen: TourAnswers = {};

  seen.linked = await call("PUT", link, { token: alice });
  seen.linkTaken = await call("PUT", link.replace("github", "GitHub"), { token: bob });
  seen.linkRead = await call("GET", link, { token: alice });
  seen.unlinked = await call("DELETE", link, { token: alice });

  seen.assetCreated = await call("PUT", asset, {
    token: alice,
    headers: { "if-none-match": "*" },
    json: { name: "Chair", material: "oak" },
  });
  const etag = seen.assetCreated.headers.etag ?? "";
  seen.assetUnchanged = await call("GET", asset, { token: alice, headers: { "if-none-match": etag } });
  seen.assetPatched = await call("PATCH", asset, {
    token: alice,
    headers: { "if-match": etag },
    json: { material: "steel" },
    contentType: "application/merge-patch+json",
  });
  seen.assetStale = await call("PATCH", asset, {
    token: bob,
    headers: { "if-match": etag },
    json: { material: "pine" },
    contentType: "application/merge-patch+json",
  });

  const order = { token: alice, headers: { "idempotency-key": config.idempotencyKey }, json: { contractId: "C-7" } };
  seen.documentCreated = await call("POST", "/v1/documents", order);
  seen.documentReplayed = await call("POST", "/v1/documents", order);
  return seen;
}

/** What a page on an origin not listed meets: the browser's refusal, as the page sees it. */
async function refused(api: string, token: string): Promise<string[]> {
  const call = fetchApi(api);
  const attempts = [
    () => call("PUT", "/v1/links/github/refused", { token }), // preflighted
    () => fetch(new URL("/healthz", api)).then((r) => r.text()), // simple: no preflight
  ];
  const outcomes: string[] = [];
  for (const attempt of attempts) {
    outcomes.push(
      await attempt().then(
        () => "answered",
        (error: Error) => `${error.name}: ${error.message}`,
      ),
    );
  }
  return outcomes;
}

Object.assign(globalThis, { tour, refused });
