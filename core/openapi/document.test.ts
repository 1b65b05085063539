import { Hono } from "hono";
import * as v from "valibot";
import { describe, expect, it, vi } from "vitest";
import { appWithoutDatabase } from "../../dev/support/app-without-database.ts";
import { routesOf } from "../app.ts";
import { CAPABILITIES } from "../capabilities.ts";
import type { RouteDeps } from "../deps.ts";
import { mountCapabilities } from "../mount.ts";
import { openApiDocument } from "./document.ts";

const app = appWithoutDatabase();
const served = async (on: Pick<Hono, "request"> = app) => (await on.request("/openapi.json")).json();

const documentedOperations = (document: { paths: Record<string, object> }) =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
  );

/** `/v1/assets/:id` → `/v1/assets/{id}`. */
const openApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");

describe("the OpenAPI document", () => {
  it("publishes a document's number as int64 up to 2^53 - 1 wherever it appears (a generated int32 would overflow)", async () => {
    const { components, paths } = await served();
    const docNumber = { type: "integer", format: "int64", maximum: Number.MAX_SAFE_INTEGER };
    const parameter = (path: string, name: string) =>
      paths[path].get.parameters.find((each: { name: string }) => each.name === name).schema;
    expect(components.schemas.Document.properties.docNumber).toMatchObject({ ...docNumber, minimum: 1 });
    expect(components.schemas.DocumentPage.properties.next.anyOf[0]).toMatchObject(docNumber);
    expect(parameter("/v1/documents/{docNumber}", "docNumber")).toMatchObject(docNumber);
    expect(parameter("/v1/documents", "after")).toMatchObject(docNumber);
    expect(parameter("/v1/documents", "limit")).not.toHaveProperty("format");
  });

  it("documents every route the app declares, and nothing else", async () => {
    const declared = routesOf(app).map((route) => `${route.method} ${openApiPath(route.path)}`);
    expect(declared.length).toBeGreaterThan(15);
    expect(documentedOperations(await served()).sort()).toEqual(declared.sort());
  });

  it("leaves out a route put on the app without a declaration", async () => {
    const extended = new Hono().route("/", app).get("/v1/undeclared", (c) => c.text("x"));
    const document = await openApiDocument(extended as never, CAPABILITIES);
    expect(documentedOperations(document)).not.toContain("GET /v1/undeclared");
    expect(documentedOperations(document)).toContain("GET /v1/me/links");
  });

  it("lists each capability's tag once, and every schema an operation refers to", async () => {
    const document = await served();
    const tags = new Set([...CAPABILITIES.map((capability) => capability.tag), "operations"]);
    expect(document.tags.map((tag: { name: string }) => tag.name)).toEqual([...tags]);
    const refs = JSON.stringify(document.paths).match(/#\/components\/schemas\/[A-Za-z]+/g) ?? [];
    const named = refs.map((ref) => ref.split("/").pop()!);
    expect(named.length).toBeGreaterThan(15);
    expect(Object.keys(document.components.schemas)).toEqual(expect.arrayContaining([...new Set(named)]));
  });

  it("refuses two capabilities that name the same schema, and a response whose schema has no name", () => {
    const [health] = CAPABILITIES as [(typeof CAPABILITIES)[number]];
    expect(() => openApiDocument(app, [health, { ...health, tag: "again" }])).toThrow(
      "two capabilities name the schema Health",
    );
    const unnamed = { ...health, schemas: {} };
    expect(() => mountCapabilities(new Hono(), [unnamed], { runtime: "node" } as RouteDeps)).toThrow(
      "a response body is a schema no capability names",
    );
  });

  it("is served at /openapi.json, OpenAPI 3.1 with bearer security, public operations exempt", async () => {
    const response = await app.request("/openapi.json");
    expect(response.status).toBe(200);
    const document = await response.json();
    expect(document).toMatchObject({ openapi: "3.1.0", security: [{ bearer: [] }] });
    expect(document.paths["/healthz"].get.security).toEqual([]);
    expect(document.paths["/v1/me/links"].get.security).toBeUndefined();
  });

  it("is built and written once per app: a later request only sends the same text", async () => {
    const own = appWithoutDatabase();
    const first = await (await own.request("/openapi.json")).text();
    const stringify = vi.spyOn(JSON, "stringify");
    try {
      const again = await own.request("/openapi.json");
      expect(again.headers.get("content-type")).toMatch(/^application\/json/);
      expect(await again.text()).toBe(first);
      expect(stringify.mock.calls.filter(([value]) => (value as { openapi?: string })?.openapi)).toEqual([]);
    } finally {
      stringify.mockRestore();
    }
  });

  it("counts characters in code points, as the routes do", async () => {
    const body = (await served()).paths["/v1/documents"].post.requestBody;
    expect(body.content["application/json"].schema.properties.contractId.maxLength).toBe(128);
  });

  it("publishes numbers of paths and queries as integers, their defaults too", async () => {
    const { paths } = await served();
    const parameter = (path: string, name: string) =>
      paths[path].get.parameters.find((p: { name: string }) => p.name === name).schema;
    expect(parameter("/v1/documents", "limit")).toEqual({ type: "integer", minimum: 1, maximum: 100, default: 20 });
    expect(parameter("/v1/me/links", "limit")).toEqual({ type: "integer", minimum: 1, maximum: 100, default: 20 });
    expect(parameter("/v1/documents", "after")).toMatchObject({ type: "integer", minimum: 0, default: 0 });
    expect(parameter("/v1/documents/{docNumber}", "docNumber")).toMatchObject({ type: "integer", minimum: 1 });
  });

  it("says what the project's own checks refuse, where a generic fuzzer reads it", async () => {
    const { paths } = await served();
    const body = (path: string, method: string) => paths[path][method].requestBody.content["application/json"].schema;
    const parameter = (path: string, method: string, name: string) =>
      paths[path][method].parameters.find((p: { name: string }) => p.name === name).schema;
    expect(body("/v1/assets/{id}", "patch").minProperties).toBe(1);
    expect(body("/v1/documents", "post").properties.title.anyOf[0].pattern).toBe(
      "^[^\\u0000-\\u001f\\u007f-\\u009f]*$",
    );
    expect(parameter("/v1/assets/{id}", "get", "id").not).toEqual({ enum: [".", "..", "import"] });
    expect(parameter("/v1/assets/{id}", "patch", "if-match").pattern).toContain("W\\/");
    expect(parameter("/v1/admin/links/resync", "post", "after").pattern).toContain("9223372036854775807");
    // A second pattern on one value joins the first under allOf.
    expect(parameter("/v1/links/{provider}/{externalAccountId}", "put", "externalAccountId").allOf).toHaveLength(1);
  });

  it("leaves X-Request-Id unconstrained (a value it does not echo is replaced, never refused)", async () => {
    const { paths } = await served();
    const requestId = paths["/v1/me/links"].get.parameters.find((p: { name: string }) => p.name === "x-request-id");
    expect(requestId.schema).toEqual({ type: "string" });
  });

  it("declares the 405 of /v1/assets/import (only POST), a path the asset operations' also names, with Allow", async () => {
    const { paths } = await served();
    for (const method of ["get", "put", "patch", "delete"]) {
      expect(paths["/v1/assets/{id}"][method].responses["405"].headers.allow.required).toBe(true);
    }
  });

  it("describes a query's failure as the contract's 422, not the validator's own 400", async () => {
    const { responses } = (await served()).paths["/v1/documents"].get;
    const codes = (status: string) =>
      responses[status].content["application/problem+json"].schema.allOf[1].properties.code.enum;
    // Its 400 is a malformed If-Match or If-None-Match, the route's own problem.
    expect(codes("400")).toEqual(["malformed_request"]);
    expect(responses["422"].content["application/problem+json"].schema.allOf[1].properties.code.enum).toEqual([
      "validation_failed",
    ]);
    expect(v.is(v.object({ openapi: v.literal("3.1.0") }), await served())).toBe(true);
  });

  it("gives every operation but the probes the 422 of a query parameter it does not take", async () => {
    const { paths } = await served();
    const operations = Object.entries(paths).flatMap(([path, item]) =>
      Object.entries(item as Record<string, { responses: Record<string, unknown> }>).map(
        ([method, { responses }]) => [`${method} ${path}`, "422" in responses] as const,
      ),
    );
    const without = operations.filter(([, has422]) => !has422).map(([operation]) => operation);
    expect(without).toEqual(["get /healthz", "get /readyz"]);
  });
});
