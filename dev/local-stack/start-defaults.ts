// The settings `npm start` turns on unless told otherwise (docs/settings.md's "`npm start`: on"): the
// interactive reference at /docs (the node runtime serves it), and where each response's time went
// (docs/benchmarks-time.md). A blank one is unset, as every runtime reads it, so it takes these too.
import type { RawSettings } from "../../core/settings/settings.ts";

const START_DEFAULTS = { API_DOCS: "on", SERVER_TIMING: "on" } as const;

/** `env` with npm start's defaults in place of what it leaves unset or blank. */
export function withStartDefaults(env: RawSettings): RawSettings {
  const defaults = Object.entries(START_DEFAULTS).filter(([name]) => !env[name]?.trim());
  return { ...env, ...Object.fromEntries(defaults) };
}
