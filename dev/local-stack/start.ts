// `npm start [-- --runtime node|cloudflare|deno|fastly[,…]] [--port N] [--neon-port N]`: the local
// stack — database (PGlite, or the PostgreSQL in DATABASE_URL), the Neon-compatible endpoint, and
// the API on the chosen runtime, or on each of a list (ports N, N+1, …). Prints the URLs and
// development tokens; Ctrl-C / SIGTERM stop everything: in-flight requests are answered, then the
// database is closed cleanly.
import { listenAddress } from "../../core/server/listen-address.ts";
import { misconfiguredLine } from "../../core/settings/misconfigured.ts";
import { SettingsError } from "../../core/settings/settings.ts";
import { readNodeSettings } from "../../edge/node/settings.ts";
import { missingRuntime, RUNTIME_SETTINGS, type RunningRuntime } from "../launchers/index.ts";
import { parseCommandLine, portOption } from "../support/command-line.ts";
import { pgliteDataDir } from "./data-dir.ts";
import { devSecretForStart, mintDevToken, refuseUnusableSettings } from "./dev-auth.ts";
import { closeRuntimes, launchRuntimes, parseRuntimeList } from "./multi-runtime.ts";
import { isPostgresUrl, startLocalStack } from "./stack.ts";
import { withStartDefaults } from "./start-defaults.ts";
import { signalListenerSnapshot, stopOnSignals } from "./stop-signals.ts";
import { assertPortFree } from "./tcp-ports.ts";

const USAGE = `Usage: npm start [-- options]

Starts the database (embedded PGlite, or the PostgreSQL named by DATABASE_URL), the local
Neon-compatible endpoint and the API, and prints the API's URL and development tokens.

Options:
  --runtime NAMES   node (default), cloudflare, deno or fastly; a comma-separated list
                    (e.g. cloudflare,fastly) starts each on its own port over one database
  --port N          the (first) API's port (default: PORT, else 8787; 0: free ports)
  --neon-port N     the Neon-compatible endpoint's port (default: a free one)
  -h, --help        print this and exit

Settings: DATABASE_URL, PGLITE_DATA_DIR (default .data/pglite), AUTH_SECRET, PORT, and the
API's settings (docs/settings.md). Ctrl-C or SIGTERM stops everything; a second one, a second later, exits without waiting.`;

const values = parseCommandLine(USAGE, {
  runtime: { type: "string", default: "node" },
  port: { type: "string" },
  "neon-port": { type: "string" },
});
let runtimes: ReturnType<typeof parseRuntimeList>;
try {
  runtimes = parseRuntimeList(values.runtime!);
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}
// A runtime this machine lacks: one line saying how to install it, before anything is written.
for (const missing of runtimes.map(missingRuntime)) {
  if (missing) {
    console.error(missing);
    process.exit(1);
  }
}
const port = values.port === undefined ? portSetting(process.env.PORT) : portOption("--port", values.port, 8787);
const neonPort = portOption("--neon-port", values["neon-port"], 0);
// A list serves on ports N, N+1, …: the last of them must be a port too.
const lastPort = port + runtimes.length - 1;
if (port !== 0 && lastPort > 65_535) {
  console.error(
    `--port / PORT: ${runtimes.length} runtimes take ports ${port} to ${lastPort}; the last must be at most 65535`,
  );
  process.exit(2);
}

/** PORT by the rule the servers read it by (a bad one named as PORT, in one line); unset: 8787. */
function portSetting(value: string | undefined): number {
  if (value === undefined || value.trim() === "") return 8787;
  try {
    return listenAddress((name) => (name === "PORT" ? value : undefined)).port;
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    console.error(misconfiguredLine(error));
    process.exit(2);
  }
}

const devSecret = await devSecretForStart(process.env);
refuseUnusableSettings(
  process.env,
  devSecret,
  runtimes.flatMap((runtime) => RUNTIME_SETTINGS[runtime] ?? []),
);
if (devSecret?.source === "created")
  console.log("AUTH_SECRET not set: created a development key in .data/dev-auth-secret");
if (devSecret?.source === "file")
  console.log("AUTH_SECRET not set: using the development key in .data/dev-auth-secret");

const databaseUrl = process.env.DATABASE_URL;
const dataDir = pgliteDataDir();
// Refusals come before anything is opened: a taken port, then the data folder's lock.
try {
  if (port !== 0) for (const [i] of runtimes.entries()) await assertPortFree(port + i, "--port / PORT");
  await assertPortFree(neonPort, "--neon-port");
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
const stack = await startLocalStack({ databaseUrl, dataDir, endpointPort: neonPort }).catch((error: Error) => {
  console.error(error.message);
  process.exit(1);
});
console.log(`Database: ${isPostgresUrl(databaseUrl) ? "PostgreSQL (DATABASE_URL)" : `embedded PGlite (${dataDir})`}`);
console.log(`Neon-compatible endpoint: ${stack.neonFetchEndpoint}`);

let servers: RunningRuntime[] = [];
stopOnSignals(async (signal) => {
  console.log(`${signal}: stopping (answering in-flight requests, then closing the database)`);
  await closeRuntimes(servers);
  await stack.close();
  console.log("Stopped: every request answered, database closed.");
});
const signalListeners = signalListenerSnapshot();
const env = withStartDefaults({ ...process.env, AUTH_SECRET: devSecret?.secret, ...stack.settings });
servers = await launchRuntimes(runtimes, env, port).catch(async (error: Error) => {
  console.error(`The runtime did not start: ${error.message}`);
  await stack.close();
  process.exit(1);
});

const token = (sub: string, role: string) =>
  devSecret ? mintDevToken({ sub, tid: "dev", role, ttl: "12h" }, devSecret.secret, process.env) : undefined;
const userToken = await token("dev-user", "user");
for (const server of servers) {
  console.log(`API (${server.runtime}) listening on ${server.url}`);
  // The token in the fragment fills in the page's bearer scheme; a fragment never reaches a server.
  if (server.runtime === "node" && readNodeSettings(env).apiDocs)
    console.log(`API reference: ${server.url}/docs${userToken ? `#token=${userToken}` : ""}`);
}
console.log(`OpenAPI document: ${servers[0]!.url}/openapi.json`);
if (userToken) {
  console.log(`Development token (user "dev-user", tenant "dev"): ${userToken}`);
  console.log(`Admin token: ${await token("dev-admin", "admin")}`);
  console.log("More: npm run token -- --sub USER --tid TENANT [--role admin]");
} else {
  console.log("Sign in with your identity provider's tokens (AUTH_JWKS / AUTH_JWKS_URL); no development key.");
}

// Miniflare registers handlers that exit at once; this process stops its runtimes itself, in
// order (stopOnSignals above), so in-flight requests are answered and the database closed cleanly.
signalListeners.dropAddedSince();
