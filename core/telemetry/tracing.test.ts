// What a span says of a request and of a statement, as OpenTelemetry's HTTP and database
// conventions name it; and what a failure says of itself.
import type { Span } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { ProblemError } from "../http/problem.ts";
import { DatabaseError, DatabaseUnavailableError } from "../ports/sql.ts";
import { failed, requestAttributes, spanMethod, statementSpan } from "./tracing.ts";

describe("a server span's request attributes", () => {
  it.each([
    [
      "GET",
      "https://api.example.com/v1/links/github/1",
      { "http.request.method": "GET", "url.scheme": "https", "server.address": "api.example.com" },
    ],
    [
      "PUT",
      "http://127.0.0.1:8787/v1/assets/chair-42?x=1",
      { "http.request.method": "PUT", "url.scheme": "http", "server.address": "127.0.0.1", "server.port": 8787 },
    ],
    // The scheme's own port is no server.port; a host is case-insensitive; an IPv6 address has no brackets.
    ["GET", "https://API.example.com:443/healthz", { "url.scheme": "https", "server.address": "api.example.com" }],
    ["GET", "http://[::1]:8787/healthz", { "server.address": "::1", "server.port": 8787 }],
    ["GET", "http://[::1]/healthz", { "server.address": "::1" }],
  ])("%s %s", (method, url, expected) => {
    const attributes = requestAttributes(new Request(url, { method }));
    expect(attributes).toMatchObject(expected);
    if (!("server.port" in expected)) expect(attributes).not.toHaveProperty("server.port");
  });

  it("holds no path, query or id: the route stands for them", () => {
    const attributes = requestAttributes(new Request("https://api.example.com/v1/assets/chair-42?limit=1"));
    expect(JSON.stringify(attributes)).not.toMatch(/chair-42|limit|v1/);
  });

  it("records a method the conventions do not know as _OTHER, named HTTP, its own name beside it", () => {
    const attributes = requestAttributes(new Request("https://api.example.com/v1/documents", { method: "PROPFIND" }));
    expect(attributes).toMatchObject({
      "http.request.method": "_OTHER",
      "http.request.method_original": "PROPFIND",
    });
    expect(spanMethod(attributes)).toBe("HTTP");
    for (const method of ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]) {
      const known = requestAttributes(new Request("https://api.example.com/", { method }));
      expect([known["http.request.method"], spanMethod(known)]).toEqual([method, method]);
      expect(known).not.toHaveProperty("http.request.method_original");
    }
  });
});

describe("a statement's span", () => {
  it("is named by its operation and table, the database named as the conventions name it", () => {
    expect(statementSpan([{ text: "SELECT * FROM linked_external_accounts WHERE tenant_id = $1" }])).toEqual([
      "SELECT linked_external_accounts",
      {
        "db.system": "postgresql",
        "db.system.name": "postgresql",
        "db.operation.name": "SELECT",
        "db.collection.name": "linked_external_accounts",
      },
    ]);
  });

  it("names a batch of one operation BATCH <it>, of several BATCH, with its size", () => {
    const inserts = [
      { text: "INSERT INTO documents (a) VALUES ($1)" },
      { text: "INSERT INTO documents (a) VALUES ($1)" },
    ];
    expect(statementSpan(inserts)).toEqual([
      "BATCH INSERT documents",
      expect.objectContaining({ "db.operation.name": "BATCH INSERT", "db.operation.batch.size": 2 }),
    ]);
    const mixed = [{ text: "UPDATE documents SET a = $1" }, { text: "DELETE FROM document_idempotency_keys" }];
    const [name, attributes] = statementSpan(mixed);
    expect(name).toBe("BATCH");
    expect(attributes).toMatchObject({ "db.operation.name": "BATCH", "db.operation.batch.size": 2 });
    expect(attributes).not.toHaveProperty("db.collection.name");
  });
});

describe("a failed span", () => {
  function failedWith(error: unknown) {
    const attributes: Record<string, unknown> = {};
    let status: unknown;
    const span = {
      setAttribute: (key: string, value: unknown) => void (attributes[key] = value),
      setStatus: (value: unknown) => void (status = value),
    } as unknown as Span;
    failed(span, error);
    return { attributes, status };
  }

  it("names a statement Postgres refused by its SQLSTATE, as the database conventions do", () => {
    const refused = new DatabaseError("duplicate key value violates unique constraint", { code: "23505" });
    expect(failedWith(refused)).toEqual({
      attributes: { "error.type": "23505", "db.response.status_code": "23505" },
      status: { code: 2, message: "23505" },
    });
  });

  it("names a refusal by its problem code, anything else by its class, never by its message", () => {
    expect(failedWith(new ProblemError(401, "unauthorized", "token for acme")).attributes).toEqual({
      "error.type": "unauthorized",
    });
    const unavailable = failedWith(new DatabaseUnavailableError("connection to db.example.com refused"));
    expect(unavailable.attributes).toEqual({ "error.type": "DatabaseUnavailableError" });
    expect(JSON.stringify(unavailable)).not.toContain("example");
    expect(failedWith("a string").attributes).toEqual({ "error.type": "Error" });
  });
});
