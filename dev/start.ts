// `npm start [-- --runtime node|cloudflare|deno|fastly[,…]] [--port N]`: the local stack — database
// (PGlite, or the PostgreSQL in DATABASE_URL), the Neon-compatible endpoint, and the API on the
// chosen runtime, or on each of a list (ports N, N+1, …). Prints the URLs and development tokens;
// Ctrl-C / SIGTERM stop everything.
import { parseArgs } from "node:util";
import { randomBytes } from "node:crypto";
import { SignJWT } from "jose";
import { closeRuntimes, launchRuntimes, parseRuntimeList } from "./multi-runtime.ts";
import { isPostgresUrl, startLocalStack } from "./stack.ts";

const { values } = parseArgs({
  options: { runtime: { type: "string", default: "node" }, port: { type: "string" } },
});
let runtimes: ReturnType<typeof parseRuntimeList>;
try {
  runtimes = parseRuntimeList(values.runtime!);
} catch (error) {
  console.error((error as Error).message);
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

const servers = await launchRuntimes(
  runtimes,
  {
    ...process.env,
    AUTH_SECRET: authSecret,
    DATABASE_URL: stack.databaseUrl,
    NEON_FETCH_ENDPOINT: stack.neonFetchEndpoint,
  },
  port,
);

const token = (sub: string, role: string) =>
  new SignJWT({ tid: "dev", role })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(sub)
    .setExpirationTime("12h")
    .sign(new TextEncoder().encode(authSecret));

for (const server of servers) console.log(`API (${server.runtime}) listening on ${server.url}`);
console.log(`Development token (user "dev-user", tenant "dev"): ${await token("dev-user", "user")}`);
console.log(`Admin token: ${await token("dev-admin", "admin")}`);

let stopping = false;
async function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: stopping`);
  await closeRuntimes(servers);
  await stack.close();
  process.exit(0);
}
// Miniflare registers handlers that exit at once; this process stops its runtime itself, in
// order, so the database is closed cleanly whatever the runtime.
process.removeAllListeners("SIGINT");
process.removeAllListeners("SIGTERM");
process.on("SIGINT", () => void stop("SIGINT"));
process.on("SIGTERM", () => void stop("SIGTERM"));
