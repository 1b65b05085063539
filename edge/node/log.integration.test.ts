import { execFileSync } from "node:child_process";
import { expect, it } from "vitest";
import { PROJECT_ROOT } from "../../dev/launchers/deno.ts";

it("a line still pending when the process exits is written", () => {
  const script = `import("./edge/node/log.ts").then(({ nodeLogger }) => { nodeLogger.log("info", "last_words"); process.exit(0); });`;
  const out = execFileSync(process.execPath, ["--import", "tsx", "-e", script], {
    cwd: PROJECT_ROOT,
    encoding: "utf8",
  });
  expect(JSON.parse(out)).toMatchObject({ level: "info", event: "last_words" });
});
