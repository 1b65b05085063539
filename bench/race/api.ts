// The app itself, in-process, over the SQL port the races use: the safe versions are its real
// HTTP handlers, not a copy of its statements.
import { randomBytes } from "node:crypto";
import { createApp } from "../../core/app.ts";
import { silentLogger } from "../../core/log.ts";
import type { Sql } from "../../core/ports/sql.ts";
import { parseSettings } from "../../core/settings/settings.ts";
import { signToken } from "../../dev/support/tokens.ts";
import { createMemoryKv } from "../../edge/kv/memory.ts";

interface Caller {
  sub: string;
  tid: string;
}

export type Api = (
  method: string,
  path: string,
  as: Caller,
  init?: { body?: unknown; headers?: Record<string, string> },
) => Promise<Response>;

export function createApi(sql: Sql): Api {
  const secret = randomBytes(32).toString("base64url");
  const app = createApp({
    sql,
    kv: createMemoryKv(),
    settings: parseSettings({ AUTH_SECRET: secret }),
    runtime: "node",
    logger: silentLogger,
  });
  return async (method, path, as, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set("authorization", `Bearer ${await signToken(as, secret)}`);
    if (init.body !== undefined) headers.set("content-type", "application/json");
    const body = init.body === undefined ? undefined : JSON.stringify(init.body);
    return app.fetch(new Request(new URL(path, "http://race.local"), { method, headers, body }));
  };
}
