// /docs as `npm start` prints it, in Chromium: Scalar renders every operation of the served
// document, with the development token filled in, and nothing of Scalar's hosted features; the
// page loads nothing from another host. A screenshot is kept for a person to look at.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeWithChromium, launchChromium } from "../../dev/support/chromium.ts";
import { type Started, startServer } from "../local-stack/processes.ts";

/** Scalar's features that talk to its own hosts (AI agent, developer toolbar): switched off. */
const HOSTED_FEATURES = ["Ask AI", "Share", "Deploy", "Configure"];

describeWithChromium("the API reference at /docs in Chromium", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "browser-docs-"));
  let api: Started | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let docsUrl: string;
  const requested: string[] = [];

  beforeAll(async () => {
    api = await startServer({ PGLITE_DATA_DIR: join(dataDir, "pglite") });
    docsUrl = await printed(api, /API reference: (\S+)/);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on("request", (request) => requested.push(request.url()));
    await page.goto(docsUrl);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (api?.child.exitCode === null) {
      api.child.kill("SIGTERM");
      await api.exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("is printed by npm start with the development token in its fragment", async () => {
    const token = await printed(api!, /Development token[^:]*: (\S+)/);
    expect(token).toMatch(/^ey/);
    expect(docsUrl).toBe(`${api!.url}/docs#token=${token}`);
  });

  it("renders the served document: every tag, the first tag's operations; the token leaves the address bar", async () => {
    const openApi = await (await fetch(`${api!.url}/openapi.json`)).json();
    const operations = Object.values(openApi.paths).flatMap((byMethod: any) => Object.values(byMethod) as any[]);
    const tags: string[] = openApi.tags.map((tag: { name: string }) => tag.name);
    // Scalar opens the first tag's group and renders the others when opened.
    const firstTag = operations.filter((operation) => operation.tags?.[0] === tags[0]).map((o) => o.summary as string);
    expect(tags.length).toBeGreaterThan(2);
    expect(firstTag.length).toBeGreaterThan(0);
    await page.waitForFunction(
      // biome-ignore lint/performance/useDomNodeTextContent: what is shown, not what the DOM holds
      (wanted) => wanted.every((text) => document.body.innerText.includes(text)),
      [...tags, ...firstTag, openApi.info.title],
      { timeout: 30_000 },
    );
    expect(new URL(page.url()).hash).toBe("");
    const screenshot = join(tmpdir(), "api-reference.png");
    await page.screenshot({ path: screenshot });
    expect(statSync(screenshot).size).toBeGreaterThan(20_000);
    console.log(`API reference screenshot: ${screenshot}`);
  });

  it("has the development token filled in for the bearer scheme", async () => {
    const token = await printed(api!, /Development token[^:]*: (\S+)/);
    await page.waitForFunction(
      (wanted) => [...document.querySelectorAll("input")].some((input) => input.value === wanted),
      token,
      { timeout: 30_000 },
    );
  });

  it("shows none of Scalar's hosted features and loads nothing from another host", async () => {
    // biome-ignore lint/performance/useDomNodeTextContent: what is shown, not what the DOM holds
    const text = await page.evaluate(() => document.body.innerText);
    expect(text).toContain("Bearer Token"); // rendered: its absence of features means something
    for (const feature of HOSTED_FEATURES) expect(text, feature).not.toMatch(new RegExp(`\\b${feature}\\b`));
    expect(requested.length).toBeGreaterThan(2);
    for (const url of requested) expect(new URL(url).origin, url).toBe(api!.url);
  });
});

/** The first group of `pattern` in what `npm start` prints, waiting for the line (it follows "listening"). */
async function printed(server: Started, pattern: RegExp): Promise<string> {
  for (let waited = 0; waited < 10_000; waited += 50) {
    const match = pattern.exec(server.output());
    if (match) return match[1]!;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`npm start never printed ${pattern}:\n${server.output()}`);
}
