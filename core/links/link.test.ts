import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { validate } from "../http/body.ts";
import { ProblemError } from "../http/problem.ts";
import {
  LinkBodySchema,
  LookupQuerySchema,
  linkLocation,
  normalizeTarget,
  TargetSchema,
  UserLinksQuerySchema,
} from "./link.ts";

function refusal(run: () => unknown): { status: number; fields: string[] } {
  try {
    run();
  } catch (error) {
    if (!(error instanceof ProblemError)) throw error;
    const errors = (error.extensions.errors ?? []) as { field: string }[];
    return { status: error.status, fields: errors.map((e) => e.field) };
  }
  throw new Error("expected a refusal");
}

describe("normalizeTarget", () => {
  it("lower-cases the provider and trims both parts", () => {
    expect(normalizeTarget({ provider: " GitHub\t", externalAccountId: "  12 34 " })).toEqual({
      provider: "github",
      externalAccountId: "12 34",
    });
    expect(normalizeTarget({ provider: "My.Provider_2-x", externalAccountId: "a/b#c?d" })).toEqual({
      provider: "my.provider_2-x",
      externalAccountId: "a/b#c?d",
    });
  });

  it("refuses providers outside [A-Za-z0-9][A-Za-z0-9._-]{0,63}", () => {
    const bad = ["", "   ", "-github", ".github", "git hub", "gít", "git/hub", "a".repeat(65), "\u212Aey"];
    for (const provider of bad) {
      expect(refusal(() => normalizeTarget({ provider, externalAccountId: "1" }))).toEqual({
        status: 422,
        fields: ["provider"],
      });
    }
    expect(normalizeTarget({ provider: "A".repeat(64), externalAccountId: "1" }).provider).toBe("a".repeat(64));
  });

  it("refuses blank, overlong or unprintable external ids, counting code points", () => {
    const bad = ["", "   ", "x".repeat(257), "😀".repeat(257), "a\u0000b", "a\nb", "a\u007fb", "a\ud800b"];
    for (const externalAccountId of bad) {
      expect(refusal(() => normalizeTarget({ provider: "github", externalAccountId }))).toEqual({
        status: 422,
        fields: ["externalAccountId"],
      });
    }
    // 256 code points are allowed even when they are 512 UTF-16 units.
    expect(normalizeTarget({ provider: "github", externalAccountId: "😀".repeat(256) }).externalAccountId).toHaveLength(
      512,
    );
  });

  it("refuses an external id that is a dot segment, trimmed or not, and keeps any other id made with dots", () => {
    for (const externalAccountId of [".", "..", " .. ", "\t.\t"]) {
      expect(refusal(() => normalizeTarget({ provider: "github", externalAccountId }))).toEqual({
        status: 422,
        fields: ["externalAccountId"],
      });
    }
    for (const externalAccountId of ["...", ".a", "a.", ". ."]) {
      expect(normalizeTarget({ provider: "github", externalAccountId }).externalAccountId).toBe(externalAccountId);
    }
  });

  it("lists every failing field at once", () => {
    expect(refusal(() => normalizeTarget({ provider: "-", externalAccountId: " " })).fields.sort()).toEqual([
      "externalAccountId",
      "provider",
    ]);
  });
});

describe("LinkBodySchema", () => {
  const ok = (body: unknown) => v.safeParse(LinkBodySchema, body).success;

  it("accepts an empty object, a display name up to 200 characters, or null", () => {
    expect(ok({})).toBe(true);
    expect(ok({ displayName: "Octo Cat" })).toBe(true);
    expect(ok({ displayName: "é".repeat(200) })).toBe(true);
    expect(ok({ displayName: "😀".repeat(200) })).toBe(true);
    expect(ok({ displayName: null })).toBe(true);
  });

  it("refuses other shapes, long or unprintable names and unknown fields", () => {
    for (const body of [
      [],
      "name",
      null,
      { displayName: 5 },
      { displayName: "x".repeat(201) },
      { displayName: "a\u0000" },
      { displayName: "\ud800" },
      { display_name: "typo" },
    ]) {
      expect(ok(body)).toBe(false);
    }
  });
});

describe("a refused link request's errors", () => {
  const errorsOf = (schema: v.GenericSchema, input: unknown) => {
    try {
      validate(schema, input);
    } catch (error) {
      if (error instanceof ProblemError) return error.extensions.errors;
    }
    throw new Error("expected a refusal");
  };
  const target = (provider: string, externalAccountId: string) => ({ provider, externalAccountId });

  // As on assets and documents: `field` names the field, the message says only what it must be.
  it.each([
    [
      "a provider starting with -",
      TargetSchema,
      target("-x", "1"),
      "provider",
      "must be 1-64 of A-Z a-z 0-9 . _ - starting with a letter or digit",
    ],
    ["a blank external id", TargetSchema, target("x", " "), "externalAccountId", "must not be blank"],
    ["a dot-segment external id", TargetSchema, target("x", ".."), "externalAccountId", "must not be . or .."],
    [
      "a 257-character external id",
      TargetSchema,
      target("x", "x".repeat(257)),
      "externalAccountId",
      "must be at most 256 characters",
    ],
    [
      "a line break in an external id",
      TargetSchema,
      target("x", "a\nb"),
      "externalAccountId",
      "must not contain control characters",
    ],
    ["a JSON array", LinkBodySchema, [], "", "must be a JSON object"],
    [
      "a 201-character displayName",
      LinkBodySchema,
      { displayName: "x".repeat(201) },
      "displayName",
      "must be at most 200 characters",
    ],
    [
      "a lone surrogate in displayName",
      LinkBodySchema,
      { displayName: "\ud800" },
      "displayName",
      "must not contain lone surrogates",
    ],
    ["consistency=always", LookupQuerySchema, { consistency: "always" }, "consistency", "must be strong or eventual"],
    ["after=!", UserLinksQuerySchema, { after: "!" }, "after", "must be the `next` of an earlier page"],
  ])("says what is wrong with %s without naming the field again", (_why, schema, input, field, message) => {
    expect(errorsOf(schema, input)).toEqual([{ field, message }]);
  });
});

describe("linkLocation", () => {
  it("percent-encodes both segments", () => {
    expect(linkLocation({ provider: "github", externalAccountId: "a/b c?#%" })).toBe(
      "/v1/links/github/a%2Fb%20c%3F%23%25",
    );
  });
});
