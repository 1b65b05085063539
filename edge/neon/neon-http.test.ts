// The client alone, against canned answers. test/local-stack/neon-wire.test.ts holds it to the
// real driver, request by request.
import { describe, expect, it } from "vitest";
import { NeonQueryError, neonHttp } from "./neon-http.ts";

const NEON_URL = "postgres://alice:pw@ep-cool-name-123456.us-east-2.aws.neon.tech/main?sslmode=require";

/** A client whose every request is answered by `answer` and noted in `sent`. */
function clientAnswering(answer: () => Response | Promise<Response>, databaseUrl = NEON_URL) {
  const sent: Array<{ url: string; init: RequestInit }> = [];
  const client = neonHttp({
    databaseUrl,
    fetchFunction: async (input, init = {}) => {
      sent.push({ url: String(input), init });
      return answer();
    },
  });
  return { client, sent };
}

const empty = () => Response.json({ fields: [], rows: [] });

describe("neonHttp", () => {
  it("posts to Neon's endpoint for the host, naming itself in the connection string", async () => {
    const { client, sent } = clientAnswering(empty);
    await client.query("SELECT $1", [1]);
    expect(sent[0]?.url).toBe("https://api.us-east-2.aws.neon.tech/sql");
    expect(sent[0]?.init).toMatchObject({
      method: "POST",
      body: '{"query":"SELECT $1","params":["1"]}',
      headers: {
        "Neon-Connection-String": `postgresql://alice:pw@ep-cool-name-123456.us-east-2.aws.neon.tech/main?sslmode=require&application_name=edge-race-free`,
        "Neon-Raw-Text-Output": "true",
        "Neon-Array-Mode": "true",
      },
    });
  });

  it("sends a transaction's options as headers, only those given", async () => {
    const { client, sent } = clientAnswering(() => Response.json({ results: [] }));
    await client.transaction([], { isolationLevel: "Serializable", readOnly: false });
    await client.transaction([], {});
    expect(sent[0]?.init.headers).toMatchObject({
      "Neon-Batch-Isolation-Level": "Serializable",
      "Neon-Batch-Read-Only": "false",
    });
    expect(Object.keys(sent[0]?.init.headers ?? {})).not.toContain("Neon-Batch-Deferrable");
    expect(Object.keys(sent[1]?.init.headers ?? {}).filter((name) => name.startsWith("Neon-Batch"))).toEqual([]);
  });

  it("keeps the HTTP status of an answer that is neither 200 nor 400", async () => {
    const { client } = clientAnswering(() => new Response("not started", { status: 503 }));
    const error = await client.query("SELECT 1", []).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NeonQueryError);
    expect(error).toMatchObject({ status: 503, message: "Server error (HTTP status 503): not started" });
  });

  it("keeps what fetch threw when no answer came", async () => {
    const refused = new TypeError("fetch failed");
    const { client } = clientAnswering(() => Promise.reject(refused));
    const error = await client.query("SELECT 1", []).catch((e: unknown) => e);
    expect(error).toMatchObject({
      message: "Error connecting to database: TypeError: fetch failed",
      sourceError: refused,
    });
  });

  it("refuses, when it is made, a connection string Neon refuses on every request", () => {
    for (const url of [
      "mysql://u@h/db",
      "postgres://h.example/db",
      "postgres://u@h.example",
      "postgres://u@h.example/",
      "postgres://u@-/db",
      "nonsense",
    ]) {
      expect(() => neonHttp({ databaseUrl: url }), url).toThrow();
    }
  });
});
