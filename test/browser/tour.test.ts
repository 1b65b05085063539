// The README's tour from a web app in Chromium: a page on another origin of this machine calls
// `npm start` with fetch, with CORS_ORIGINS listing that origin; a page on an origin not listed is
// refused by the browser itself.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeWithChromium, launchChromium } from "../../dev/support/chromium.ts";
import { signToken } from "../../dev/support/tokens.ts";
import { type Started, startServer } from "../local-stack/processes.ts";
import type { TourAnswers, TourConfig } from "./page/app.ts";
import { type PageServer, servePage } from "./page-server.ts";

declare const tour: (config: TourConfig) => Promise<TourAnswers>;
declare const refused: (api: string, token: string) => Promise<string[]>;

describeWithChromium("the README's tour from a web app in Chromium", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "browser-tour-"));
  let pages: PageServer;
  let api: Started | undefined;
  let browser: Browser | undefined;

  beforeAll(async () => {
    pages = await servePage(join(import.meta.dirname, "page/app.ts"));
    // Only the page's 127.0.0.1 origin is listed: its localhost twin is another origin.
    api = await startServer({
      PGLITE_DATA_DIR: join(dataDir, "pglite"),
      CORS_ORIGINS: `http://127.0.0.1:${pages.port}`,
    });
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (api?.child.exitCode === null) {
      api.child.kill("SIGTERM");
      await api.exited;
    }
    await pages?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const open = async (origin: string): Promise<Page> => {
    const page = await browser!.newPage();
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => "tour" in globalThis);
    return page;
  };

  it("runs from a listed origin: a link, a conditional PATCH with the ETag it read, an idempotent create and its replay", async () => {
    const page = await open(`http://127.0.0.1:${pages.port}`);
    const run = crypto.randomUUID().slice(0, 8);
    const config: TourConfig = {
      api: api!.url,
      alice: await signToken({ sub: "alice", tid: `web-${run}` }),
      bob: await signToken({ sub: "bob", tid: `web-${run}` }),
      accountId: `web-${run}`,
      assetId: `chair-${run}`,
      idempotencyKey: `order-${run}`,
    };
    const seen = await page.evaluate((config) => tour(config), config);

    expect(seen.linked!.status).toBe(201);
    expect(seen.linked!.body).toMatchObject({
      provider: "github",
      externalAccountId: config.accountId,
      userId: "alice",
    });
    expect(seen.linked!.headers.location).toBe(`/v1/links/github/${config.accountId}`);
    expect(seen.linked!.headers["x-request-id"]).toMatch(/\S/);
    expect(seen.linked!.headers["server-timing"]).toMatch(/total/);
    expect(seen.linkTaken!.status).toBe(409);
    expect(seen.linkTaken!.body.code).toBe("external_account_already_linked");
    expect(seen.linkRead!.status).toBe(200);
    expect(seen.linkRead!.headers["x-link-source"]).toMatch(/^(kv|db)$/);
    expect(seen.unlinked!.status).toBe(204);

    expect(seen.assetCreated!.status).toBe(201);
    const etag = seen.assetCreated!.headers.etag;
    expect(etag).toMatch(/^"/);
    expect(seen.assetUnchanged!.status).toBe(304);
    expect(seen.assetPatched!.status).toBe(200);
    expect(seen.assetPatched!.body).toMatchObject({ id: config.assetId, material: "steel" });
    expect(seen.assetPatched!.headers.etag).toMatch(/^"/);
    expect(seen.assetPatched!.headers.etag).not.toBe(etag);
    expect(seen.assetStale!.status).toBe(412);
    expect(seen.assetStale!.body.code).toBe("precondition_failed");

    expect(seen.documentCreated!.status).toBe(201);
    expect(seen.documentCreated!.body).toMatchObject({ docNumber: 1, contractId: "C-7" });
    expect(seen.documentCreated!.headers.location).toBe("/v1/documents/1");
    expect(seen.documentCreated!.headers["idempotent-replayed"]).toBeUndefined();
    expect(seen.documentReplayed!.status).toBe(201);
    expect(seen.documentReplayed!.body).toEqual(seen.documentCreated!.body);
    expect(seen.documentReplayed!.headers["idempotent-replayed"]).toBe("true");
    await page.close();
  });

  it("is refused by the browser from an origin not listed, preflighted or not", async () => {
    const page = await open(`http://localhost:${pages.port}`);
    const outcomes = await page.evaluate(([url, token]) => refused(url, token), [
      api!.url,
      await signToken({ sub: "mallory", tid: "web" }),
    ] as const);
    expect(outcomes).toEqual(["TypeError: Failed to fetch", "TypeError: Failed to fetch"]);
    await page.close();
  });
});
