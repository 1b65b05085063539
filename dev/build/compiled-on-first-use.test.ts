import { fileURLToPath } from "node:url";
import { parse } from "csv-parse/browser/esm/sync";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { compiledOnFirstUse, type DeferredPackage } from "./compiled-on-first-use.ts";
import { DEFERRED_PACKAGES } from "./fastly.ts";

const SPECIFIER = "csv-parse/browser/esm/sync";
const CSV = 'id,name\r\n"a,1","say ""hi"""\r\n';

const CSV_ENTRY = `import { parse } from ${JSON.stringify(SPECIFIER)}; export const rows = (text) => parse(text);`;

/** An entry calling the package through the plugin, bundled as the Fastly build bundles. */
async function bundled(
  contents = CSV_ENTRY,
  packages: readonly DeferredPackage[] = [{ specifier: SPECIFIER, functions: ["parse"] }],
): Promise<string> {
  const result = await build({
    stdin: { contents, resolveDir: fileURLToPath(new URL(".", import.meta.url)) },
    plugins: [compiledOnFirstUse(packages)],
    bundle: true,
    write: false,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    logLevel: "silent",
  });
  return result.outputFiles[0]!.text;
}

const imported = async (code: string) => import(`data:text/javascript;base64,${Buffer.from(code).toString("base64")}`);

describe("a package compiled on first use", () => {
  it("is in the bundle only as text, and compiled when first called", async () => {
    const code = await bundled();
    expect(code).toContain("new Function(");
    // Tens of KiB of csv-parse, and outside its string only the few lines that compile it.
    const outsideStrings = code.replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"/g, "''");
    expect(code.length).toBeGreaterThan(30_000);
    expect(outsideStrings.length).toBeLessThan(1_000);
  });

  it("answers as the package does", async () => {
    const module = await imported(await bundled());
    expect(module.rows(CSV)).toEqual(parse(CSV));
    expect(() => module.rows('"unclosed')).toThrow(/Quote Not Closed/i);
  });

  // Hono's methodNotAllowed, deferred as the Fastly build defers it, in an app of its own.
  const HONO_ENTRY = `
    import { Hono } from "hono/tiny";
    import { methodNotAllowed } from "hono/method-not-allowed";
    const app = new Hono();
    app.use(methodNotAllowed({ app }));
    app.get("/x", (c) => c.text("x"));
    export const answer = (method) => app.request("/x", { method });`;
  const honoMiddleware = DEFERRED_PACKAGES.find((deferred) => deferred.specifier === "hono/method-not-allowed")!;

  it("shares the modules it is told to with the service: Hono's request keys are one Symbol", async () => {
    const code = await bundled(HONO_ENTRY, [honoMiddleware]);
    const module = await imported(code);
    const answer: Response = await module.answer("POST");
    expect(answer.status).toBe(405);
    expect(answer.headers.get("allow")).toBe("GET, HEAD");
    expect((await module.answer("GET")).status).toBe(200);
  });

  it("without them, has its own copy of that Symbol, and cannot read the request's matches", async () => {
    const code = await bundled(HONO_ENTRY, [{ ...honoMiddleware, shared: [] }]);
    expect((await (await imported(code)).answer("POST")).status).toBe(500);
  });
});
