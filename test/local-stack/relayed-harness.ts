// The whole production path with a TCP relay between the local endpoint and a fresh PostgreSQL
// database, for the suites that cut or partition the database away from the endpoint.
import { afterAll, beforeAll } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../dev/support/postgres.ts";
import { type Harness, startHarness } from "../support/harness.ts";
import { startTcpProxy, type TcpProxy } from "./tcp-proxy.ts";

export interface Relayed {
  harness: Harness;
  proxy: TcpProxy;
  /** A create with its Idempotency-Key, in `tenant`. */
  create(key: string): Promise<Response>;
}

/** Started before the enclosing describe's cases, stopped after them. */
export function relayedHarness(
  tenant: string,
  options: { poolSize: number; connectionTimeoutMillis?: number },
): () => Relayed {
  let database: TestDatabase | undefined;
  let relayed: Relayed | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
    const proxy = await startTcpProxy(Number(new URL(database.url).port || 5432));
    const viaProxy = Object.assign(new URL(database.url), { port: String(proxy.port) }).toString();
    const harness = await startHarness({ backend: "postgres", postgresUrl: viaProxy, ...options });
    const create = (key: string) =>
      harness.request("/v1/documents", {
        method: "POST",
        as: { tid: tenant },
        headers: { "idempotency-key": key },
        body: { contractId: key },
      });
    relayed = { harness, proxy, create };
  });
  afterAll(async () => {
    await relayed?.harness.close();
    await relayed?.proxy.close();
    await database?.drop();
  });
  return () => {
    if (!relayed) throw new Error("the relayed harness did not start");
    return relayed;
  };
}
