// Starts the local stack and one runtime the way `npm start -- --runtime X` does, then runs the
// conformance suite against it over HTTP.
import { afterAll, beforeAll, describe } from "vitest";
import type { RawSettings } from "../../core/settings/settings.ts";
import { SUITE_STARTUP_TIMEOUT_MS as STARTUP_TIMEOUT_MS } from "../../dev/launchers/child-server.ts";
import type { RuntimeName } from "../../dev/launchers/index.ts";
import { launchRuntime, type RunningRuntime } from "../../dev/launchers/index.ts";
import type { KvEntries } from "../../dev/launchers/planted-kv.ts";
import { type LocalStack, startLocalStack } from "../../dev/local-stack/stack.ts";
import { refusedPort } from "../../dev/support/free-port.ts";
import { TEST_AUTH_SECRET } from "../../dev/support/tokens.ts";
import { CONFORMANCE_CORS_SETTINGS } from "./cases/cors.ts";
import { identityProviderCases } from "./cases/identity-provider.ts";
import { CONFORMANCE_LINK_LIMITS } from "./cases/links.ts";
import { plantedLinkCases, plantedLinkEntries } from "./cases/planted-links.ts";
import { OUTAGE_CACHE_SECONDS, providerOutageCases } from "./cases/provider-outage.ts";
import { RATE_LIMITED_SETTINGS, rateLimitCases, viceroyRateLimitCases } from "./cases/rate-limits.ts";
import { SCHEMA_BEHIND_SQL, schemaBehindCases } from "./cases/schema-behind.ts";
import { KEY_SET_SECRET, signedKeySetCases } from "./cases/signed-key-set.ts";
import { httpClient } from "./client.ts";
import {
  type IdentityProvider,
  type KeySetPlanter,
  keySetPlanter,
  PROVIDER_SETTINGS,
  signedKeySetEntries,
  startIdentityProvider,
} from "./identity-provider.ts";
import { conformsToServedDocument } from "./openapi-check.ts";
import { conformanceSuite, loginRefusedSuite, unavailableSuite } from "./suite.ts";

export function runConformance(runtime: RuntimeName): void {
  describe(`conformance [${runtime}]`, () => {
    let stack: LocalStack | undefined;
    const server = serve(runtime, async () => {
      // Embedded PGlite behind the Neon-compatible endpoint: the suite checks behaviour over
      // HTTP only (races are proven on PostgreSQL by the capability suites).
      stack = await startLocalStack();
      return {
        ...stack.settings,
        ...CONFORMANCE_LINK_LIMITS,
        ...CONFORMANCE_CORS_SETTINGS,
        // On, as under `npm start`: the cases check its header on every runtime.
        SERVER_TIMING: "on",
      };
    });
    afterAll(async () => {
      await stack?.close();
    });
    conformanceSuite(runtime, server);

    // The same endpoint, a wrong password: the login is refused as Neon's proxy refuses it.
    const refused = serve(runtime, async () => {
      const url = new URL(stack?.databaseUrl ?? "");
      url.password = "wrong";
      return { DATABASE_URL: url.toString(), NEON_FETCH_ENDPOINT: stack?.neonFetchEndpoint };
    });
    loginRefusedSuite(refused);

    // The same database, small quotas: callers and tenants past them (Viceroy never refuses).
    const limited = serve(runtime, async () => ({ ...stack?.settings, ...RATE_LIMITED_SETTINGS }));
    const cases = runtime === "fastly" ? viceroyRateLimitCases : rateLimitCases;
    cases(httpClient(limited, conformsToServedDocument(limited)));

    // The same database, another deployment: its KV store holds a link and a sync cursor planted there.
    const planted = serve(runtime, async () => ({ ...stack?.settings }), undefined, plantedLinkEntries);
    plantedLinkCases(
      httpClient(server, conformsToServedDocument(server)),
      httpClient(planted, conformsToServedDocument(planted)),
    );
  });

  describe(`conformance [${runtime}], database unreachable`, () => {
    const server = serve(runtime, async () => {
      const port = await refusedPort();
      return {
        DATABASE_URL: `postgres://app:pw@127.0.0.1:${port}/app`,
        NEON_FETCH_ENDPOINT: `http://127.0.0.1:${port}/sql`,
      };
    });
    unavailableSuite(runtime, server);
  });

  describe(`conformance [${runtime}], the database's schema behind`, () => {
    let stack: LocalStack | undefined;
    const server = serve(runtime, async () => {
      stack = await startLocalStack({ ownerSql: SCHEMA_BEHIND_SQL });
      return stack.settings;
    });
    afterAll(async () => {
      await stack?.close();
    });
    schemaBehindCases(httpClient(server, conformsToServedDocument(server)), runtime, () => stack!.ownerExec);
  });

  describe(`conformance [${runtime}], signed in by an identity provider`, () => {
    // Its KV store starts out holding a key set someone else planted: the cases show it signs nothing.
    let planter: KeySetPlanter | undefined;
    const { server, provider } = serveWithProvider(runtime, {}, async (jwksUrl) => {
      planter = await keySetPlanter(jwksUrl);
      return planter.kvEntries;
    });
    identityProviderCases(httpClient(server), runtime, provider, () => planter!);
  });

  describe(`conformance [${runtime}], the identity provider down`, () => {
    const { server, provider } = serveWithProvider(runtime, {
      AUTH_JWKS_CACHE_SECONDS: String(OUTAGE_CACHE_SECONDS),
    });
    providerOutageCases(httpClient(server), provider);
  });

  signedKeySetDescribe(runtime);
}

function signedKeySetDescribe(runtime: RuntimeName) {
  describe(`conformance [${runtime}], the identity provider down from the start, the stored key set signed`, () => {
    let started: Promise<[LocalStack, IdentityProvider]> | undefined;
    let provider: IdentityProvider | undefined;
    let planter: KeySetPlanter | undefined;
    // One database and one provider, failing before any instance asks it, for both deployments.
    const start = () =>
      (started ??= Promise.all([startLocalStack(), startIdentityProvider()]).then((pair) => {
        provider = pair[1];
        provider.setAvailability("failing");
        return pair;
      }));
    const settings = async () => {
      const [stack, idp] = await start();
      return {
        ...stack.settings,
        AUTH_JWKS_URL: idp.jwksUrl,
        ...PROVIDER_SETTINGS,
        AUTH_JWKS_KV_SECRET: KEY_SET_SECRET,
      };
    };
    const planted = serve(runtime, settings, {}, async () => {
      planter = await keySetPlanter((await start())[1].jwksUrl);
      return planter.kvEntries;
    });
    const signed = serve(runtime, settings, {}, async () => signedKeySetEntries((await start())[1], KEY_SET_SECRET));
    afterAll(async () => {
      const [stack, idp] = (await started) ?? [];
      await Promise.all([stack?.close(), idp?.close()]);
    });
    signedKeySetCases(
      httpClient(planted),
      httpClient(signed),
      () => provider!,
      () => planter!,
    );
  });
}

/**
 * `runtime` trusting only a provider's keys (fetched from its JWKS URL), over its own database;
 * `planted`: what its KV store holds before the first request.
 */
function serveWithProvider(
  runtime: RuntimeName,
  settings: RawSettings = {},
  planted?: (jwksUrl: string) => Promise<KvEntries>,
) {
  let stack: LocalStack | undefined;
  let provider: IdentityProvider | undefined;
  // No AUTH_SECRET: only the provider's keys are trusted.
  const server = serve(
    runtime,
    async () => {
      [stack, provider] = await Promise.all([startLocalStack(), startIdentityProvider()]);
      return {
        ...stack.settings,
        AUTH_JWKS_URL: provider.jwksUrl,
        ...PROVIDER_SETTINGS,
        ...settings,
      };
    },
    {},
    () => (planted ? planted(provider!.jwksUrl) : Promise.resolve(undefined)),
  );
  afterAll(async () => {
    await Promise.all([stack?.close(), provider?.close()]);
  });
  return { server, provider: () => provider! };
}

/** Launches `runtime` before the cases of the enclosing describe; answers its URL. */
function serve(
  runtime: RuntimeName,
  database: () => Promise<RawSettings>,
  auth: RawSettings = { AUTH_SECRET: TEST_AUTH_SECRET },
  kvEntries: () => Promise<KvEntries | undefined> = async () => undefined,
): () => string {
  let running: RunningRuntime | undefined;
  beforeAll(async () => {
    const settings = { ...auth, ...(await database()) };
    running = await launchRuntime(runtime, settings, { port: 0, kvEntries: await kvEntries() });
  }, STARTUP_TIMEOUT_MS);
  afterAll(async () => {
    await running?.close();
  });
  return () => {
    if (!running) throw new Error(`the ${runtime} runtime did not start`);
    return running.url;
  };
}
