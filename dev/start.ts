// `npm start [-- --runtime node|cloudflare|deno|fastly] [--port N]`: the local stack — database
// (PGlite, or the PostgreSQL in DATABASE_URL), the Neon-compatible endpoint, and the API on the
// chosen runtime. Prints the URL and development tokens; Ctrl-C / SIGTERM stop everything.
import { parseArgs } from "node:util";
import { devSecretForStart, mintDevToken, refuseUnusableSettings } from "./dev-auth.ts";
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

const devSecret = await devSecretForStart(process.env);
refuseUnusableSettings(process.env, devSecret);
if (devSecret?.source === "created") console.log("AUTH_SECRET not set: created a development key in .data/dev-auth-secret");
if (devSecret?.source === "file") console.log("AUTH_SECRET not set: using the development key in .data/dev-auth-secret");

const databaseUrl = process.env.DATABASE_URL;
const dataDir = process.env.PGLITE_DATA_DIR ?? ".data/pglite";
const stack = await startLocalStack({ databaseUrl, dataDir });
console.log(`Database: ${isPostgresUrl(databaseUrl) ? "PostgreSQL (DATABASE_URL)" : `embedded PGlite (${dataDir})`}`);
console.log(`Neon-compatible endpoint: ${stack.neonFetchEndpoint}`);

const server = await launchRuntime(
  runtime,
  {
    ...process.env,
    AUTH_SECRET: devSecret?.secret,
    DATABASE_URL: stack.databaseUrl,
    NEON_FETCH_ENDPOINT: stack.neonFetchEndpoint,
    // The interactive reference at /docs (the node runtime serves it): on here unless turned off.
    API_DOCS: process.env.API_DOCS ?? "on",
  },
  { port },
);

console.log(`API (${runtime}) listening on ${server.url}`);
console.log(`OpenAPI document: ${server.url}/openapi.json`);
if (runtime === "node" && process.env.API_DOCS !== "off") console.log(`API reference: ${server.url}/docs`);
if (devSecret) {
  const token = (sub: string, role: string) => mintDevToken({ sub, tid: "dev", role, ttl: "12h" }, devSecret.secret, process.env);
  console.log(`Development token (user "dev-user", tenant "dev"): ${await token("dev-user", "user")}`);
  console.log(`Admin token: ${await token("dev-admin", "admin")}`);
  console.log("More: npm run token -- --sub USER --tid TENANT [--role admin]");
} else {
  console.log("Sign in with your identity provider's tokens (AUTH_JWKS / AUTH_JWKS_URL); no development key.");
}

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
