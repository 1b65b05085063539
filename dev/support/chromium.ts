// Debian's Chromium, headless, driven by playwright-core. Suites that need it are skipped with a
// warning where it is missing, and fail under CI=true (required-tool.ts).
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";
import { describeNeeding } from "./required-tool.ts";

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
  const missing = existsSync(CHROMIUM_PATH)
    ? undefined
    : `Chromium is not at ${CHROMIUM_PATH} (apt-get install chromium, or set CHROMIUM_PATH)`;
  describeNeeding("Chromium", missing, name, fn);
}
