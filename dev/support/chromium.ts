// Debian's Chromium, headless, driven by playwright-core. Suites that need it are skipped with a
// warning where it is missing, and fail under CI=true: CI never goes green by testing less.
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";
import { describe, it } from "vitest";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

// No network of its own (updates, sync, QUIC probes): the pages under test are all it loads.
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export const launchChromium = (): Promise<Browser> => chromium.launch({ executablePath: CHROMIUM_PATH, args: ARGS });

/** `describe` for suites that need Chromium: skipped with a warning without it, failing in CI. */
export function describeWithChromium(name: string, fn: () => void): void {
  if (existsSync(CHROMIUM_PATH)) return void describe(name, fn);
  if (process.env.CI === "true") {
    describe(name, () => {
      it("needs Chromium", () => {
        throw new Error(`Chromium is required in CI but ${CHROMIUM_PATH} is missing (apt-get install chromium)`);
      });
    });
    return;
  }
  console.warn(
    `\n!!! Chromium is not at ${CHROMIUM_PATH}: SKIPPING "${name}". ` +
      "Install it (apt-get install chromium) or set CHROMIUM_PATH to run it. In CI this fails. !!!\n",
  );
  describe.skip(name, fn);
}
