import { spawnSync } from "node:child_process";
import { expect, it } from "vitest";
import { DENO_BIN, PROJECT_ROOT } from "../../dev/launchers/deno.ts";

// How the program ends right after logging, before the line's timer could fire.
const ENDINGS = {
  exits: "Deno.exit(0)",
  "fails on an uncaught error": 'throw new Error("boom")',
  "fails on an unhandled rejection": 'Promise.reject(new Error("boom"))',
};

it.each(Object.entries(ENDINGS))("a line still pending when Deno %s is written", (_, ending) => {
  const script = `import { denoLogger } from "./edge/deno/log.ts"; denoLogger.log("info", "last_words"); ${ending};`;
  const { stdout } = spawnSync(DENO_BIN, ["eval", script], { cwd: PROJECT_ROOT, encoding: "utf8" });
  expect(JSON.parse(stdout)).toMatchObject({ level: "info", event: "last_words" });
});
