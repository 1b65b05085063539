// docs/settings.md's table says what the settings schema says: every setting a deployed entry
// reads is listed, nothing else is, and each default is the one its schema takes when it is unset.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { LISTEN_SETTINGS } from "../core/server/listen-address.ts";
import { defaultsOf } from "../core/settings/schema.ts";
import { SETTINGS_GROUPS } from "../core/settings/settings.ts";
import { WORKERS_SETTINGS } from "../edge/cloudflare/settings.ts";
import { DENO_SETTINGS } from "../edge/deno/settings.ts";
import { NODE_SETTINGS } from "../edge/node/settings.ts";

const ROOT = resolve(import.meta.dirname, "..");

/** Every setting of a schema, with the default it takes (as written; undefined: none). */
const SCHEMA_DEFAULTS: Record<string, string | undefined> = Object.assign(
  {},
  ...[...SETTINGS_GROUPS, LISTEN_SETTINGS, NODE_SETTINGS, WORKERS_SETTINGS, DENO_SETTINGS].map(defaultsOf),
);
/** Settings that name a path, read where they are used rather than through a schema. */
const PATH_SETTINGS: Record<string, string> = {
  DENO_KV_PATH: "edge/deno/index.ts",
  PGLITE_DATA_DIR: "dev/local-stack/data-dir.ts",
};

interface Row {
  names: string[];
  /** The default cell's values, one per name (or one for all), before any parenthesis. */
  defaults: string[];
}

/** The rows of the table under `## Settings` in `markdown`. */
function settingsTable(markdown: string): Row[] {
  const section = markdown.slice(markdown.indexOf("## Settings"));
  const table = section.slice(0, section.search(/\n\n(?!\|)/)).split("\n");
  return table
    .filter((line) => line.startsWith("| `"))
    .map((line) => {
      const [names = "", fallback = ""] = line.slice(1, -1).split("|");
      return {
        names: [...names.matchAll(/`(\w+)`/g)].map((m) => m[1]!),
        defaults: fallback
          .replace(/\(.*$/, "")
          .split(" / ")
          .map((value) => value.trim().replace(/^`(.*)`$/, "$1")),
      };
    });
}

/** What is wrong with `rows` against `schema` (defaults by name) and the path settings: one line each. */
function tableMismatches(rows: readonly Row[], schema: Record<string, string | undefined>): string[] {
  const listed = rows.flatMap((row) => row.names);
  const missing = Object.keys(schema)
    .filter((name) => !listed.includes(name))
    .map((name) => `${name} is not in the table`);
  const unknown = listed
    .filter((name) => !(name in schema) && !(name in PATH_SETTINGS))
    .map((name) => `${name} is no setting`);
  const wrongDefaults = rows.flatMap(({ names, defaults }) =>
    names.flatMap((name, i) => {
      const said = defaults.length === names.length ? defaults[i] : defaults[0];
      const fallback = schema[name];
      return fallback !== undefined && said !== fallback
        ? [`${name} defaults to ${fallback}, the table says ${said}`]
        : [];
    }),
  );
  return [...missing, ...unknown, ...wrongDefaults];
}

describe("the settings table of docs/settings.md", () => {
  const rows = settingsTable(readFileSync(join(ROOT, "docs/settings.md"), "utf8"));

  it("lists every setting of the schemas, nothing else, each with the default its schema takes", () => {
    expect(rows.length).toBeGreaterThan(15);
    expect(tableMismatches(rows, SCHEMA_DEFAULTS)).toEqual([]);
  });

  it("lists the path settings where they are read", () => {
    for (const [name, file] of Object.entries(PATH_SETTINGS))
      expect(readFileSync(join(ROOT, file), "utf8"), name).toContain(name);
  });

  it("catches a missing row, an unknown name and a default that drifted", () => {
    const table = [
      "## Settings",
      "",
      "| name | default | what |",
      "| --- | --- | --- |",
      "| `A` / `B` | `x` / 5 (`npm start`: 6) | two |",
      "| `C` | none | gone |",
      "",
      "After.",
    ].join("\n");
    expect(settingsTable(table)).toEqual([
      { names: ["A", "B"], defaults: ["x", "5"] },
      { names: ["C"], defaults: ["none"] },
    ]);
    expect(tableMismatches(settingsTable(table), { A: "x", B: "5", D: undefined })).toEqual([
      "D is not in the table",
      "C is no setting",
    ]);
    expect(tableMismatches(settingsTable(table), { A: "x", B: "6", C: undefined })).toEqual([
      "B defaults to 6, the table says 5",
    ]);
  });
});
