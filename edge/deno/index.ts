// The Deno entry: `deno task start` (see deno.json). Deno.env → settings → ports → the core app,
// served by Deno.serve with Deno KV as the link cache. Deno.cron drains the link change feed.
import { createApp } from "../../core/app.ts";
import { createLinkSync } from "../../core/links/sync.ts";
import { createDenoKv, type DenoKv } from "../kv/deno-kv.ts";
import { neonSqlFromSettings } from "../neon/neon-sql.ts";
import { settingsFromEnv } from "./settings.ts";

// Only what this file uses of the Deno namespace, so the project's tsc needs no Deno types.
interface DenoGlobal {
  env: { get(name: string): string | undefined };
  cron(name: string, schedule: string, handler: () => Promise<void>): Promise<void>;
  openKv(path?: string): Promise<DenoKv>;
  serve(
    options: { port: number; hostname: string; onListen(address: { hostname: string; port: number }): void },
    handler: (request: Request) => Response | Promise<Response>,
  ): unknown;
}
const deno = (globalThis as unknown as { Deno: DenoGlobal }).Deno;

const settings = settingsFromEnv((name) => deno.env.get(name));
const sql = neonSqlFromSettings(settings);
// No path: Deno Deploy's KV, or a local database in Deno's cache. DENO_KV_PATH=:memory: for tests.
const kv = createDenoKv(await deno.openKv(deno.env.get("DENO_KV_PATH") || undefined));
const linkSync = createLinkSync({ sql, kv, settings });
const app = createApp({ sql, kv, settings, runtime: "deno", linkSync });

// Deno.cron fires at most once a minute; each run drains every interval until the next one.
const CRON_PERIOD_MS = 60_000;
void deno.cron("link-sync", "* * * * *", () => linkSync.runFor(CRON_PERIOD_MS));

deno.serve(
  {
    port: Number(deno.env.get("PORT") ?? 8000),
    hostname: "127.0.0.1",
    // One JSON line, which the local launcher reads to learn the port when PORT=0.
    onListen: ({ hostname, port }) => console.log(JSON.stringify({ event: "listening", url: `http://${hostname}:${port}` })),
  },
  app.fetch,
);
