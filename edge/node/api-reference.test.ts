import { afterAll, describe, expect, it } from "vitest";
import { appWithoutDatabase } from "../../dev/support/app-without-database.ts";
import { API_REFERENCE_SCRIPT_PATH, withApiReference } from "./api-reference.ts";
import { listen, type RunningServer } from "./server.ts";

const app = appWithoutDatabase();

describe("the API reference at /docs", () => {
  const servers: RunningServer[] = [];
  afterAll(() => Promise.all(servers.map((server) => server.close())));

  it("is served over the app's /openapi.json when enabled; the app answers everything else", async () => {
    const server = await listen(withApiReference(app.fetch), { port: 0 });
    servers.push(server);
    const docs = await fetch(`${server.url}/docs`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await docs.text()).toContain("/docs/start.js");
    expect(await (await fetch(`${server.url}/docs/start.js`)).text()).toContain('"/openapi.json"');
    expect((await fetch(`${server.url}/openapi.json`)).status).toBe(200);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it("names only this server's URLs: the script is the installed Scalar bundle, served from here", async () => {
    const server = await listen(withApiReference(app.fetch), { port: 0 });
    servers.push(server);
    const page = await (await fetch(`${server.url}/docs`)).text();
    const start = await (await fetch(`${server.url}/docs/start.js`)).text();
    // Every URL the page names: src and href attributes, and every string of the config that is a URL.
    const attributes = [...page.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((m) => m[1]!);
    const strings = [...`${page}${start}`.matchAll(/"((?:https?:|\/)[^"]*)"/g)].map((m) => m[1]!);
    const urls = [...attributes, ...strings];
    expect(urls).toContain(API_REFERENCE_SCRIPT_PATH);
    expect(urls).toContain("/openapi.json");
    for (const url of urls) expect(new URL(url, server.url).origin, url).toBe(server.url);
    expect(`${page}${start}`).not.toMatch(/(?:https?:)?\/\/[a-z0-9-]+\.[a-z]/i);
    // No inline script, so a `script-src 'self'` policy holds: the start-up is a served file.
    expect(page).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(start).toContain('Scalar.createApiReference("#app", configuration)');
    expect(start).toContain('"url": "/openapi.json"');
    expect(start).toContain('"withDefaultFonts": false');
    const script = await fetch(`${server.url}${API_REFERENCE_SCRIPT_PATH}`);
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toMatch(/^text\/javascript/);
    const code = await script.text();
    expect(code.length).toBeGreaterThan(1_000_000);
    expect(code).toContain("createApiReference");
  });

  it("is absent without it: /docs is the app's 404", async () => {
    const server = await listen(app.fetch, { port: 0 });
    servers.push(server);
    const docs = await fetch(`${server.url}/docs`);
    expect(docs.status).toBe(404);
    expect(docs.headers.get("content-type")).toBe("application/problem+json");
  });
});
