import { execFileSync } from "node:child_process";
import { expect, it } from "vitest";
import { DENO_BIN, PROJECT_ROOT } from "../../dev/launchers/deno.ts";

it("a line still pending when Deno exits is written", () => {
  const script = `import { denoLogger } from "./edge/deno/log.ts"; denoLogger.log("info", "last_words"); Deno.exit(0);`;
  const out = execFileSync(DENO_BIN, ["eval", script], { cwd: PROJECT_ROOT, encoding: "utf8" });
  expect(JSON.parse(out)).toMatchObject({ level: "info", event: "last_words" });
});
