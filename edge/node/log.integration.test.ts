import { spawnSync } from "node:child_process";
import { expect, it } from "vitest";
import { PROJECT_ROOT } from "../../dev/launchers/deno.ts";

// How the process ends right after logging, before the line's timer could fire.
const ENDINGS = { exits: "process.exit(0)", "fails on an uncaught error": 'throw new Error("boom")' };

it.each(Object.entries(ENDINGS))("a line still pending when the process %s is written", (_, ending) => {
  const script = `import("./edge/node/log.ts").then(({ nodeLogger }) => { nodeLogger.log("info", "last_words"); ${ending}; });`;
  const { stdout } = spawnSync(process.execPath, ["--import", "tsx", "-e", script], {
    cwd: PROJECT_ROOT,
    encoding: "utf8",
  });
  expect(JSON.parse(stdout)).toMatchObject({ level: "info", event: "last_words" });
});
