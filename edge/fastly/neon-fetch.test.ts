import { describe, expect, it } from "vitest";
import { DatabaseOutcomeUnknownError, DatabaseUnavailableError } from "../../core/ports/sql.ts";
import { createNeonSql } from "../neon/neon-sql.ts";
import { installAbortSignal } from "./abort-signal.ts";
import { fetchThroughBackend } from "./neon-fetch.ts";

describe("the Neon client's fetch on Fastly", () => {
  it("sends every request to the named backend, without the signal Compute would ignore", async () => {
    const seen: unknown[] = [];
    const send = (async (input: unknown, init: unknown) => {
      seen.push([input, init]);
      return new Response("ok");
    }) as typeof fetch;
    const controller = new AbortController();
    const response = await fetchThroughBackend("neon", send)("http://db/sql", {
      method: "POST",
      body: "{}",
      signal: controller.signal,
    });
    expect(await response.text()).toBe("ok");
    expect(seen).toEqual([["http://db/sql", { method: "POST", body: "{}", backend: "neon" }]]);
  });

  it("honours the signal: an abort rejects with its reason while the backend is silent", async () => {
    const never = (() => new Promise<Response>(() => {})) as typeof fetch;
    const controller = new AbortController();
    const pending = fetchThroughBackend("neon", never)("http://db/sql", { signal: controller.signal });
    controller.abort(new Error("too slow"));
    await expect(pending).rejects.toThrow("too slow");
    await expect(fetchThroughBackend("neon", never)("http://db/sql", { signal: controller.signal })).rejects.toThrow(
      "too slow",
    );
  });

  it("works with the AbortController installed for Compute", async () => {
    const scope: Record<string, unknown> = {};
    installAbortSignal(scope);
    const controller = new (scope.AbortController as typeof AbortController)();
    const never = (() => new Promise<Response>(() => {})) as typeof fetch;
    const pending = fetchThroughBackend("neon", never)("http://db/sql", { signal: controller.signal });
    controller.abort(new DOMException("no answer", "TimeoutError"));
    await expect(pending).rejects.toMatchObject({ name: "TimeoutError" });
  });
});

// What js-compute's `fetch` rejects with when a backend request fails: a DOMException named
// NetworkError whose message is Compute's send error (js-compute's FastlySendError::message;
// its own tests on Fastly expect "Connection refused" and "TLS certificate error"). Viceroy
// reports none of them: it gives the bare "NetworkError when attempting to fetch resource.".
const NEVER_SENT = [
  "DNS timeout",
  "DNS error (rcode=3, info_code=0)",
  "Destination not found",
  "Destination unavailable",
  "Destination IP unroutable",
  "Connection refused",
  "Connection timeout",
  "Connection limit reached",
  "TLS certificate error",
  "TLS configuration error",
];
const MAYBE_SENT = [
  "Connection terminated",
  "Incomplete HTTP response",
  "HTTP response timeout",
  "NetworkError when attempting to fetch resource.",
];

describe("the SQL port through the neon backend, when Compute's fetch fails", () => {
  let failure = "";
  const send = (async () => {
    throw new DOMException(failure, "NetworkError");
  }) as typeof fetch;
  const sql = createNeonSql({
    databaseUrl: "postgres://app:pw@ep-send-errors.fastly.test/app",
    fetchEndpoint: "https://api.fastly.test/sql",
    fetchFunction: fetchThroughBackend("neon", send),
  });
  const errorOf = (message: string) => {
    failure = message;
    return sql.query("INSERT INTO documents DEFAULT VALUES").catch((error: unknown) => error);
  };

  it("a request that never left (no address, unhealthy backend, no connection, no TLS): unavailable, nothing written", async () => {
    for (const message of NEVER_SENT) expect(await errorOf(message), message).toBeInstanceOf(DatabaseUnavailableError);
  });

  it("a request that may have reached the database: outcome unknown", async () => {
    for (const message of MAYBE_SENT) {
      expect(await errorOf(message), message).toBeInstanceOf(DatabaseOutcomeUnknownError);
    }
  });
});
