// Which npm package an import names, and what a package.json lists: read by the layout test, the
// Node release's import check and the Fastly build's size report alike.
import { readFileSync } from "node:fs";

/** The package an import specifier (or a path below node_modules/) names: `hono`, `@scope/name`. */
export const packageOf = (specifier: string): string =>
  specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");

/** The runtime dependencies the package.json at `manifest` lists, by name. */
export const dependenciesOf = (manifest: string): string[] =>
  Object.keys((JSON.parse(readFileSync(manifest, "utf8")) as { dependencies?: object }).dependencies ?? {});
