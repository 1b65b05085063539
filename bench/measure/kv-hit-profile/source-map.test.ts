import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { afterAll, describe, expect, it } from "vitest";
import { bundleSources } from "./source-map.ts";

const dir = mkdtempSync(join(tmpdir(), "profile-map-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a bundle's sources", () => {
  it("names the file each of its functions was written in", async () => {
    const file = join(dir, "baseline.mjs");
    await build({
      entryPoints: [new URL("../kv-baseline/node.ts", import.meta.url).pathname],
      outfile: file,
      bundle: true,
      packages: "external",
      format: "esm",
      platform: "node",
      sourcemap: "external",
      logLevel: "silent",
    });
    const code = readFileSync(file, "utf8");
    const at = (name: string) => {
      const before = code.slice(0, code.indexOf(`function ${name}(`)).split("\n");
      return {
        functionName: name,
        url: pathToFileURL(file).href,
        lineNumber: before.length - 1,
        columnNumber: before.at(-1)!.length,
      };
    };
    const sourceOf = bundleSources(file);
    expect(sourceOf(at("createMemoryKv"))).toMatch(/\/edge\/kv\/memory\.ts$/);
    expect(sourceOf(at("kvBaselineHandler"))).toMatch(/\/bench\/measure\/kv-baseline\/handler\.ts$/);
    expect(sourceOf({ functionName: "listen", url: "node:net" })).toBe("node:net");
  });
});
