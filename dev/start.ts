// `npm start [-- --runtime node|cloudflare|deno|fastly] [--port N]`: the local stack — database
// (PGlite, or the PostgreSQL in DATABASE_URL), the Neon-compatible endpoint, and the API on the
// chosen runtime. Prints the URL and development tokens; Ctrl-C / SIGTERM stop everything.
import { parseArgs } from "node:util";
import { randomBytes } from "node:crypto";
import { SignJWT } from "jose";
import { isRuntimeName, launchRuntime } from "./launchers/index.ts";
import { isPostgresUrl, startLocalStack } from "./stack.ts";

const { values } = parseArgs({
  options: { runtime: { type: "string", default: "node" }, port: { type: "string" } },
});
const runtime = values.runtime!;
if (!isRuntimeName(runtime)) {
  console.error(`Unknown runtime "${runtime}": choose node, cloudflare, deno or fastly.`);
  process.exit(2);
}
const port = Number(values.port ?? process.env.PORT ?? 8787);

const authSecret = process.env.AUTH_SECRET ?? randomBytes(32).toString("base64url");
if (!process.env.AUTH_SECRET) console.log(`AUTH_SECRET not set; generated a development key: ${authSecret}`);

const databaseUrl = process.env.DATABASE_URL;
const dataDir = process.env.PGLITE_DATA_DIR ?? ".data/pglite";
const stack = await startLocalStack({ databaseUrl, dataDir });
console.log(`Database: ${isPostgresUrl(databaseUrl) ? "PostgreSQL (DATABASE_URL)" : `embedded PGlite (${dataDir})`}`);
console.log(`Neon-compatible endpoint: ${stack.neonFetchEndpoint}`);

const server = await launchRuntime(
  runtime,
  {
    ...process.env,
    AUTH_SECRET: authSecret,
    DATABASE_URL: stack.databaseUrl,
    NEON_FETCH_ENDPOINT: stack.neonFetchEndpoint,
    // The interactive reference at /docs (the node runtime serves it): on here unless turned off.
    API_DOCS: process.env.API_DOCS ?? "on",
  },
  { port },
);

const token = (sub: string, role: string) =>
  new SignJWT({ tid: "dev", role })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(sub)
    .setExpirationTime("12h")
    .sign(new TextEncoder().encode(authSecret));

console.log(`API (${runtime}) listening on ${server.url}`);
console.log(`OpenAPI document: ${server.url}/openapi.json`);
if (runtime === "node" && process.env.API_DOCS !== "off") console.log(`API reference: ${server.url}/docs`);
console.log(`Development token (user "dev-user", tenant "dev"): ${await token("dev-user", "user")}`);
console.log(`Admin token: ${await token("dev-admin", "admin")}`);

let stopping = false;
async function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: stopping`);
  await server.close();
  await stack.close();
  process.exit(0);
}
// Miniflare registers handlers that exit at once; this process stops its runtime itself, in
// order, so the database is closed cleanly whatever the runtime.
process.removeAllListeners("SIGINT");
process.removeAllListeners("SIGTERM");
process.on("SIGINT", () => void stop("SIGINT"));
process.on("SIGTERM", () => void stop("SIGTERM"));
