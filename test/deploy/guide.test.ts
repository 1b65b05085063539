// docs/deploy.md against what it describes: every Fastly and Wrangler command in it uses flags the
// pinned CLIs accept, in a form that works on a service whose entries the first publish already
// made. (Its settings live in docs/settings.md, which test/settings-table.test.ts checks.)
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../../dev/build/fastly.ts";
import { type Exit, runToExit } from "./processes.ts";

const GUIDE = readFileSync(join(ROOT, "docs", "deploy.md"), "utf8");
const CLIS = {
  fastly: join(ROOT, "node_modules", ".bin", "fastly"),
  wrangler: join(ROOT, "node_modules", ".bin", "wrangler"),
};
// Both CLIs look for updates on the internet; a proxy on a closed local port keeps that here.
const OFFLINE = { HTTPS_PROXY: "http://127.0.0.1:9", HTTP_PROXY: "http://127.0.0.1:9", NO_PROXY: "", CI: "true" };

/** The `npx fastly …` and `npx wrangler …` lines of the guide's shell blocks, comments removed. */
function guideCommands(): { cli: keyof typeof CLIS; words: string[]; flags: string[]; line: string }[] {
  const blocks = [...GUIDE.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
  return blocks
    .flatMap((block) => block.split("\n"))
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter((line) => /^npx (fastly|wrangler) /.test(line))
    .map((line) => {
      const [, cli, ...tokens] = line.split(/\s+/);
      const words: string[] = [];
      for (const token of tokens) {
        if (!/^[a-z][a-z-]*$/.test(token)) break;
        words.push(token);
      }
      const flags = tokens.filter((token) => token.startsWith("-")).map((token) => token.split("=")[0]!);
      return { cli: cli as keyof typeof CLIS, words, flags, line };
    });
}

describe("docs/deploy.md", () => {
  const commands = guideCommands();

  it("has the commands this check reads", () => {
    expect(commands.map(({ cli }) => cli)).toEqual(expect.arrayContaining(["fastly", "wrangler"]));
    expect(commands.length).toBeGreaterThan(8);
  });

  // Each distinct `--help` once, Wrangler's all at once (a start alone takes a second or two);
  // Fastly's one after the other, with a config folder of their own: each run rewrites its config
  // file, and one started beside another (this file's, or a build's) may print nothing.
  const helps = new Map<string, Promise<Exit>>();
  let fastlyQueue: Promise<unknown> = Promise.resolve();
  let fastlyConfig = "";
  const helpOf = ({ cli, words }: (typeof commands)[number]) => {
    const key = [cli, ...words].join(" ");
    if (!helps.has(key)) {
      const env = cli === "fastly" ? { ...OFFLINE, XDG_CONFIG_HOME: fastlyConfig } : OFFLINE;
      const run = () => runToExit(CLIS[cli], [...words, "--help"], env, ROOT);
      const help = cli === "fastly" ? fastlyQueue.then(run) : run();
      if (cli === "fastly") fastlyQueue = help;
      helps.set(key, help);
    }
    return helps.get(key)!;
  };
  beforeAll(async () => {
    fastlyConfig = await mkdtemp(join(tmpdir(), "fastly-config-"));
    for (const command of commands) void helpOf(command);
  });
  afterAll(async () => {
    await Promise.allSettled(helps.values());
    if (fastlyConfig) await rm(fastlyConfig, { recursive: true, force: true });
  });

  it.each(commands.map((command) => [command.line, command]))(
    "%s: every flag is the CLI's",
    async (_line, command) => {
      const help = await helpOf(command);
      const text = help.stdout + help.stderr;
      expect(help.code, text).toBe(0);
      for (const flag of command.flags) {
        expect(text, `${flag} in ${command.cli} ${command.words.join(" ")} --help`).toMatch(
          new RegExp(`(^|[\\s,])${flag}(?=[\\s,=]|$)`, "m"),
        );
      }
    },
    60_000,
  );

  it("writes store entries so that a second run, on the entries the first publish made, works too", () => {
    for (const { words, flags, line } of commands) {
      if (words.join(" ") === "config-store-entry create") throw new Error(`${line}: fails once the entry exists`);
      if (words.join(" ") === "config-store-entry update") expect(flags, line).toContain("--upsert");
      if (words.join(" ") === "secret-store-entry create")
        expect(
          flags.some((flag) => flag.startsWith("--recreate")),
          line,
        ).toBe(true);
    }
  });
});
