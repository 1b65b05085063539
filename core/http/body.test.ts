import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { MAX_BODY_BYTES, MAX_REPEATS_NAMED, readBodyText, readJson } from "./body.ts";
import { ProblemError } from "./problem.ts";

const Schema = v.strictObject({ name: v.pipe(v.string(), v.minLength(1)) });

const post = (body: BodyInit | null, contentType?: string) =>
  new Request("http://x/", {
    method: "POST",
    body,
    headers: contentType ? { "content-type": contentType } : {},
  });

async function problemOf(promise: Promise<unknown>): Promise<ProblemError> {
  const error = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ProblemError);
  return error as ProblemError;
}

describe("readJson", () => {
  it("parses and validates a JSON body", async () => {
    expect(await readJson(post('{"name":"x"}', "application/json; charset=utf-8"), Schema)).toEqual({ name: "x" });
  });

  it("accepts listed extra media types", async () => {
    const request = post('{"name":"x"}', "application/merge-patch+json");
    expect(await readJson(request, Schema, { mediaTypes: ["application/merge-patch+json"] })).toEqual({ name: "x" });
  });

  it("answers 415 for another content type", async () => {
    const problem = await problemOf(readJson(post('{"name":"x"}', "text/plain"), Schema));
    expect([problem.status, problem.code]).toEqual([415, "unsupported_media_type"]);
  });

  it("answers 400 for malformed JSON", async () => {
    const problem = await problemOf(readJson(post('{"name":', "application/json"), Schema));
    expect([problem.status, problem.code]).toEqual([400, "malformed_request"]);
  });

  it("answers 400 for invalid UTF-8", async () => {
    // The bad byte inside a JSON string: decoded leniently it would be U+FFFD and the body valid
    // JSON, so only the UTF-8 check can refuse it (outside a string, JSON.parse would refuse it too).
    const body = new Uint8Array([...new TextEncoder().encode('{"name":"'), 0xff, ...new TextEncoder().encode('"}')]);
    const problem = await problemOf(readJson(post(body, "application/json"), Schema));
    expect([problem.status, problem.code, problem.detail]).toEqual([
      400,
      "malformed_request",
      "The body is not valid UTF-8.",
    ]);
  });

  it("answers 422 listing the failing fields", async () => {
    const problem = await problemOf(readJson(post('{"name":"","extra":1}', "application/json"), Schema));
    expect([problem.status, problem.code]).toEqual([422, "validation_failed"]);
    const fields = (problem.extensions.errors as { field: string }[]).map((e) => e.field).sort();
    expect(fields).toEqual(["extra", "name"]);
  });

  it("refuses a member one object names twice (422, must be given once), wherever it is", async () => {
    const twice = async (body: string) => {
      const problem = await problemOf(readJson(post(body, "application/json"), v.unknown()));
      expect([problem.status, problem.code]).toEqual([422, "validation_failed"]);
      return problem.extensions.errors;
    };
    expect(await twice('{"name":"a","name":"b"}')).toEqual([{ field: "name", message: "must be given once" }]);
    // Compared as decoded: an escape spells the same name.
    expect(await twice('{"name":"a", "\\u006eame" :"b"}')).toEqual([{ field: "name", message: "must be given once" }]);
    expect(await twice('{"a":{"b":1,"c":{},"b":2},"d":[0,{"e":[],"e":null}],"a":3}')).toEqual([
      { field: "a.b", message: "must be given once" },
      { field: "d.1.e", message: "must be given once" },
      { field: "a", message: "must be given once" },
    ]);
    expect(await twice('[{"__proto__":1,"__proto__":2}]')).toEqual([
      { field: "0.__proto__", message: "must be given once" },
    ]);
  });

  it("names at most MAX_REPEATS_NAMED repeats, however many a deep body holds", async () => {
    // 5,000 arrays deep, then 2,000 repeats: each path is 5,001 keys long.
    const depth = 5_000;
    const repeats = Array.from({ length: 2_000 }, () => '"a":1').join(",");
    const body = `${"[".repeat(depth)}{${repeats}}${"]".repeat(depth)}`;
    expect(body.length).toBeLessThan(MAX_BODY_BYTES);
    const problem = await problemOf(readJson(post(body, "application/json"), v.unknown()));
    const errors = problem.extensions.errors as { field: string }[];
    expect(errors).toHaveLength(MAX_REPEATS_NAMED);
    expect(errors[0]!.field).toBe(`${"0.".repeat(depth)}a`);
  });

  it("reads one name in several objects, and names inside strings, as no repeat", async () => {
    const body = '{"x":{"x":1},"y":{"x":[{"x":"x"},{"x":"\\"x\\":{,}[]"}]},"z":"x","w":"{\\"x\\":1,\\"x\\":2}"}';
    expect(await readJson(post(body, "application/json"), v.unknown())).toEqual(JSON.parse(body));
  });

  it("reads an empty body as the given default", async () => {
    expect(await readJson(post(null), v.object({}), { whenEmpty: {} })).toEqual({});
  });

  it("refuses an empty body without a default", async () => {
    expect((await problemOf(readJson(post(null), Schema))).status).toBe(415);
    expect((await problemOf(readJson(post("", "application/json"), Schema))).status).toBe(400);
  });
});

describe("readBodyText", () => {
  it("answers 413 past the limit, declared or streamed", async () => {
    const big = "x".repeat(MAX_BODY_BYTES + 1);
    expect((await problemOf(readBodyText(post(big, "text/plain")))).status).toBe(413);
    // A Request made here carries no Content-Length of its own: the declared one is sent by hand,
    // over a body small enough that only the declaration can be what is refused.
    const declared = new Request("http://x/", {
      method: "POST",
      body: "small",
      headers: { "content-length": String(MAX_BODY_BYTES + 1) },
    });
    expect((await problemOf(readBodyText(declared))).status).toBe(413);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 70; i++) controller.enqueue(new Uint8Array(1024));
        controller.close();
      },
    });
    const streamed = new Request("http://x/", { method: "POST", body: stream, duplex: "half" } as RequestInit);
    expect((await problemOf(readBodyText(streamed))).code).toBe("payload_too_large");
  });

  it("reads a body of exactly the limit, declared or not", async () => {
    expect((await readBodyText(post("y".repeat(MAX_BODY_BYTES)))).length).toBe(MAX_BODY_BYTES);
    const declared = new Request("http://x/", {
      method: "POST",
      body: "y".repeat(MAX_BODY_BYTES),
      headers: { "content-length": String(MAX_BODY_BYTES) },
    });
    expect((await readBodyText(declared)).length).toBe(MAX_BODY_BYTES);
  });
  it("answers 400 for a body that stops arriving, as the request's fault, not an internal error", async () => {
    const broken = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"name":'));
        controller.error(new Error("aborted"));
      },
    });
    const request = new Request("http://x/", { method: "POST", body: broken, duplex: "half" } as RequestInit);
    const problem = await problemOf(readBodyText(request));
    expect([problem.status, problem.code]).toEqual([400, "malformed_request"]);
  });
});
