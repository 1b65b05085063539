// The guides name the repository's files as they are: every path a page of docs/ or the README
// puts in backticks (`core/app.ts`, `edge/<runtime>/`, `npx tsx bench/measure/startup.ts`) exists.
// A path is a word that starts with one of the repository's folders; `<name>` stands for any one
// name and `*` for any part of one, as the guides write them. bench/results/ is left out: it
// records past runs, with the paths of their day.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "..");
const IGNORED = new Set(["node_modules", ".git", ".data", ".cache", "dist", "bin", "pkg"]);

function entriesUnder(dir: string, prefix = ""): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (IGNORED.has(name)) return [];
    const path = `${prefix}${name}`;
    return statSync(join(dir, name)).isDirectory()
      ? [`${path}/`, ...entriesUnder(join(dir, name), `${path}/`)]
      : [path];
  });
}

/** Every file of the repository, and every folder with a trailing slash, root-relative. */
const ENTRIES = entriesUnder(ROOT);
const FOLDERS = ENTRIES.filter((entry) => entry.endsWith("/") && !entry.slice(0, -1).includes("/"));

/** The backticked words of a page that name a repository path (code blocks included). */
function namedPaths(markdown: string, folders: readonly string[]): string[] {
  const spans = [...markdown.matchAll(/```[^\n]*\n([\s\S]*?)```|`([^`\n]+)`/g)].map((m) => (m[1] ?? m[2])!);
  const words = spans.flatMap((span) => span.split(/[\s=]+/));
  const paths = words
    .map((word) => word.replace(/^["'(]+|[)"',;:.]+$/g, "").replace(/:\d+(-\d+)?$/, ""))
    .filter((word) => folders.some((folder) => word.startsWith(folder)) && !word.includes("://"));
  return [...new Set(paths)];
}

/** How the guides write a name they stand for: any one name, any part of one, any folders, a migration number. */
const WILDCARDS: Record<string, string> = { "**/": "(?:[^/]+/)*", "*": "[^/]*", NNNN: "\\d{4}" };

/**
 * Whether `path` is one of `entries`: with the wildcards, `<name>` for any one name, a folder when
 * it ends in /, and a migration by its number alone (`sql/0005` for sql/0005_*.sql).
 */
function pathExists(path: string, entries: readonly string[]): boolean {
  const pattern = path
    .split(/(<[^>]+>|\*\*\/|\*|NNNN)/)
    .map((part) => WILDCARDS[part] ?? (part.startsWith("<") ? "[^/]+" : part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")))
    .join("");
  const byNumber = /\/\d+$/.test(path) ? "(?:_[^/]*)?" : "";
  const matcher = new RegExp(`^${pattern}${byNumber}${path.endsWith("/") ? "" : "/?"}$`);
  return entries.some((entry) => matcher.test(entry));
}

const pages = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

describe("the paths the docs name exist", () => {
  it("reads the README, the guides to adding a runtime and a capability, and every page of docs/", () => {
    expect(pages).toEqual(
      expect.arrayContaining(["README.md", "docs/adding-a-runtime.md", "docs/adding-a-capability.md", "docs/API.md"]),
    );
  });

  it.each(pages)("%s names only paths that exist", (page) => {
    const named = namedPaths(readFileSync(join(ROOT, page), "utf8"), FOLDERS);
    expect(named.filter((path) => !pathExists(path, ENTRIES))).toEqual([]);
  });
});

describe("the check itself", () => {
  const entries = [
    "core/",
    "core/app.ts",
    "edge/",
    "edge/deno/",
    "edge/deno/index.ts",
    "sql/",
    "sql/0005_counters.sql",
  ];
  const folders = ["core/", "edge/", "sql/"];

  it("finds the paths in backticks, code blocks and commands, not other words", () => {
    const page = [
      "See `core/app.ts:12`, `edge/<runtime>/index.ts` and (`edge/deno/`).",
      "Run `npx tsx core/gone.ts --rounds 4`; `/v1/links`, `hono/http-exception`, edge/unquoted.ts.",
      "```sh\nnode core/fenced.ts\n```",
    ].join("\n");
    expect(namedPaths(page, folders)).toEqual([
      "core/app.ts",
      "edge/<runtime>/index.ts",
      "edge/deno/",
      "core/gone.ts",
      "core/fenced.ts",
    ]);
  });

  it("accepts what exists, placeholders and globs included, and refuses what does not", () => {
    expect(pathExists("core/app.ts", entries)).toBe(true);
    expect(pathExists("edge/deno", entries)).toBe(true);
    expect(pathExists("edge/<runtime>/index.ts", entries)).toBe(true);
    expect(pathExists("edge/*/index.ts", entries)).toBe(true);
    expect(pathExists("core/**/app.ts", entries)).toBe(true);
    expect(pathExists("sql/NNNN_<capability>.sql", entries)).toBe(true);
    expect(pathExists("sql/0005", entries)).toBe(true);
    expect(pathExists("sql/0006", entries)).toBe(false);
    expect(pathExists("core/gone.ts", entries)).toBe(false);
    expect(pathExists("edge/<runtime>/settings.ts", entries)).toBe(false);
    expect(pathExists("core/app.ts/", entries)).toBe(false);
  });
});

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_~]|<[^>]+>/g, (m) => (m === "_" ? "_" : ""))
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors a page's headings give, a repeated one numbered as GitHub numbers it. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, "");
  for (const [, heading] of withoutCode.matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const anchor = anchorOf(heading!);
    const count = seen.get(anchor) ?? 0;
    anchors.add(count === 0 ? anchor : `${anchor}-${count}`);
    seen.set(anchor, count + 1);
  }
  return anchors;
}

/** The targets of a page's Markdown links that stay inside the repository. */
function localLinks(markdown: string): string[] {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  return [...withoutCode.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z]+:/i.test(target));
}

/** The links of `page` that lead nowhere: a missing file, or an anchor no heading gives. */
function brokenLinks(page: string, read: (path: string) => string | undefined): string[] {
  const source = read(page)!;
  return localLinks(source).filter((target) => {
    const [file, anchor] = target.split("#") as [string, string | undefined];
    const path = file === "" ? page : normalize(join(dirname(page), file)).replace(/\/$/, "");
    const text = read(path);
    if (text === undefined) return true;
    return anchor !== undefined && path.endsWith(".md") && !anchorsOf(text).has(anchor);
  });
}

const readEntry = (path: string): string | undefined => {
  if (ENTRIES.includes(`${path}/`)) return "";
  return ENTRIES.includes(path) ? readFileSync(join(ROOT, path), "utf8") : undefined;
};

const markdownPages = [
  "README.md",
  ...ENTRIES.filter((entry) => entry.startsWith("docs/") && entry.endsWith(".md")),
  ...ENTRIES.filter((entry) => /^(bench|client)\/[^/]*\.md$/.test(entry)),
];

describe("the links of the docs resolve", () => {
  it.each(markdownPages)("%s links only to files and headings that exist", (page) => {
    expect(brokenLinks(page, readEntry)).toEqual([]);
  });

  it("finds a missing file, a missing heading and a link to a folder", () => {
    const files: Record<string, string> = {
      "docs/a.md":
        "# Title\n## Two words\n[ok](b.md#the-b) [here](#two-words) [dir](../core/) [gone](c.md) [bad](b.md#nope)",
      "docs/b.md": "# The B\n",
      core: "",
    };
    expect(brokenLinks("docs/a.md", (path) => files[path])).toEqual(["c.md", "b.md#nope"]);
    expect(anchorOf("`npm start` — the stack (PGlite)")).toBe("npm-start--the-stack-pglite");
  });
});
