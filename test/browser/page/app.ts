// A web app on an origin of its own runs the README's tour against the API through the typed
// client (client/, openapi-fetch over the browser's fetch), and answers what it saw, step by step,
// for the test to check.
import { createClient } from "../../../client/index.ts";
import { type ApiAnswer, answerOf } from "./api.ts";

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

const LINK = "/v1/links/{provider}/{externalAccountId}";
const ASSET = "/v1/assets/{id}";
const MERGE_PATCH = { "content-type": "application/merge-patch+json" };
const TRACE_CONTEXT = { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", tracestate: "web=1" };

async function tour(config: TourConfig): Promise<TourAnswers> {
  const alice = createClient({ baseUrl: config.api, token: config.alice });
  const bob = createClient({ baseUrl: config.api, token: config.bob });
  const link = { path: { provider: "github", externalAccountId: config.accountId } };
  const asset = { path: { id: config.assetId } };
  const seen: TourAnswers = {};

  seen.linked = await answerOf(alice.PUT(LINK, { params: link }));
  seen.linkTaken = await answerOf(bob.PUT(LINK, { params: { path: { ...link.path, provider: "GitHub" } } }));
  // Sent with the page's trace, as OpenTelemetry's fetch instrumentation sends it: headers a
  // preflight must allow, or the browser refuses the call.
  seen.linkRead = await answerOf(alice.GET(LINK, { params: link, headers: TRACE_CONTEXT }));
  seen.unlinked = await answerOf(alice.DELETE(LINK, { params: link }));

  seen.assetCreated = await answerOf(
    alice.PUT(ASSET, {
      params: { ...asset, header: { "if-none-match": "*" } },
      body: { name: "Chair", material: "oak" },
    }),
  );
  const etag = seen.assetCreated.headers.etag ?? "";
  seen.assetUnchanged = await answerOf(alice.GET(ASSET, { params: { ...asset, header: { "if-none-match": etag } } }));
  seen.assetPatched = await answerOf(
    alice.PATCH(ASSET, {
      params: { ...asset, header: { "if-match": etag } },
      body: { material: "steel" },
      headers: MERGE_PATCH,
    }),
  );
  seen.assetStale = await answerOf(
    bob.PATCH(ASSET, {
      params: { ...asset, header: { "if-match": etag } },
      body: { material: "pine" },
      headers: MERGE_PATCH,
    }),
  );

  const order = { params: { header: { "idempotency-key": config.idempotencyKey } }, body: { contractId: "C-7" } };
  seen.documentCreated = await answerOf(alice.POST("/v1/documents", order));
  seen.documentReplayed = await answerOf(alice.POST("/v1/documents", order));
  return seen;
}

/** What a page on an origin not listed meets: the browser's refusal, as the page sees it. */
async function refused(api: string, token: string): Promise<string[]> {
  const client = createClient({ baseUrl: api, token });
  const attempts = [
    () => client.PUT(LINK, { params: { path: { provider: "github", externalAccountId: "refused" } } }), // preflighted
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
