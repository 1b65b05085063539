// `npm run token -- --sub U --tid T [--role R] [--ttl 1h]`: prints a development token for the
// local server's secret (AUTH_SECRET, else the one `npm start` keeps in .data/dev-auth-secret).
import { parseArgs } from "node:util";
import { usageMistake } from "../support/command-line.ts";
import { devSecretForTokens, mintDevToken } from "./dev-auth.ts";

const USAGE = `Usage: npm run token -- --sub USER --tid TENANT [--role user|service|admin] [--ttl 1h]

Prints an HS256 development token signed with AUTH_SECRET, or else with the secret npm start
keeps in .data/dev-auth-secret. The tenant and role go in the claims AUTH_TENANT_CLAIM and
AUTH_ROLE_CLAIM name (tid and role by default).

  --sub   the user id (1-128 characters)
  --tid   the tenant id ([A-Za-z0-9_-], 1-64 characters)
  --role  user (default), service or admin
  --ttl   lifetime: 30m, 1h, 7d... (default 1h)
  --help  this text

Example: curl -H "Authorization: Bearer $(npm run -s token -- --sub alice --tid acme)" http://127.0.0.1:8787/v1/me/links`;

const ROLES = ["user", "service", "admin"];

/** The one line printed for a usage error (exit 2). */
class UsageError extends Error {}

function request(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      sub: { type: "string" },
      tid: { type: "string" },
      role: { type: "string" },
      ttl: { type: "string", default: "1h" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return undefined;
  if (!values.sub || values.sub.length > 128) throw new UsageError("--sub is required (1-128 characters)");
  if (!values.tid || !/^[A-Za-z0-9_-]{1,64}$/.test(values.tid))
    throw new UsageError("--tid is required ([A-Za-z0-9_-], 1-64 characters)");
  if (values.role !== undefined && !ROLES.includes(values.role))
    throw new UsageError(`--role must be one of ${ROLES.join(", ")}`);
  if (!/^\d+(\.\d+)?\s*[a-z]+$/i.test(values.ttl!)) throw new UsageError("--ttl must be a span such as 30m, 1h or 7d");
  return { sub: values.sub, tid: values.tid, role: values.role, ttl: values.ttl };
}

async function main(argv: string[]): Promise<number> {
  let wanted: ReturnType<typeof request>;
  try {
    wanted = request(argv);
  } catch (error) {
    console.error(`${usageMistake(error)}\n(npm run token -- --help)`);
    return 2;
  }
  if (!wanted) {
    console.log(USAGE);
    return 0;
  }
  const secret = await devSecretForTokens(process.env);
  if (!secret) {
    console.error(
      "No development secret: set AUTH_SECRET, or run npm start once (it keeps one in .data/dev-auth-secret).",
    );
    return 1;
  }
  try {
    console.log(await mintDevToken(wanted, secret, process.env));
    return 0;
  } catch (error) {
    console.error(`--ttl: ${(error as Error).message}`);
    return 2;
  }
}

process.exitCode = await main(process.argv.slice(2));
