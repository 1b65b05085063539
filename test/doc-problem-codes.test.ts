// The contract names every problem code a client can meet: docs/API.md says the codes it and its
// pages name are part of it, and a code only core knows of is one no client can plan for.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { problemCodes } from "../core/http/problem.ts";

const DOCS = resolve(import.meta.dirname, "../docs");
const CONTRACT = ["API.md", "API-assets.md", "API-documents.md", "API-links.md"]
  .map((page) => readFileSync(resolve(DOCS, page), "utf8"))
  .join("\n");

describe("the contract (docs/API.md and its pages)", () => {
  it.each(problemCodes)("names the problem code %s", (code) => {
    expect(CONTRACT).toContain(`\`${code}\``);
  });
});
