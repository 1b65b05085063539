import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

// core/ runs unchanged on Node, workerd, Deno and Fastly: Web-standard APIs only.
const FORBIDDEN = [
  { pattern: /from\s+["']node:/, why: "a node: module" },
  { pattern: /\brequire\s*\(/, why: "CommonJS require" },
  { pattern: /\bprocess\.(env|exit|argv|cwd|on)\b/, why: "Node's process" },
  { pattern: /\bDeno\./, why: "the Deno namespace" },
  { pattern: /\bBuffer\./, why: "Node's Buffer" },
  { pattern: /from\s+["'](fastly:|cloudflare:)/, why: "a runtime module" },
  { pattern: /from\s+["'](pg|@electric-sql\/pglite|@neondatabase\/serverless|@hono\/node-server)["']/, why: "a driver or server" },
];

const coreDir = new URL(".", import.meta.url).pathname;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith(".ts") && !name.endsWith(".test.ts") ? [path] : [];
  });
}

describe("core/ is runtime-agnostic", () => {
  const files = sourceFiles(coreDir);

  it("has source files to check", () => {
    expect(files.length).toBeGreaterThan(5);
  });

  it.each(files.map((file) => [relative(coreDir, file), file]))("%s reaches for no runtime", (_name, file) => {
    const source = readFileSync(file, "utf8");
    const found = FORBIDDEN.filter(({ pattern }) => pattern.test(source)).map(({ why }) => why);
    expect(found).toEqual([]);
  });

  it("the check itself catches a runtime import", () => {
    const sample = 'import { readFileSync } from "node:fs";\nprocess.env.X;';
    expect(FORBIDDEN.filter(({ pattern }) => pattern.test(sample)).length).toBe(2);
  });
});
