// The Cloudflare Workers entry: a module worker. Bindings → settings → ports → the core app.
import { createApp, type App } from "../../core/app.ts";
import { consoleLogger } from "../../core/log.ts";
import { misconfiguredResponse } from "../../core/misconfigured.ts";
import { createWorkersKv } from "../kv/workers-kv.ts";
import { neonSqlFromSettings } from "../neon/neon-sql.ts";
import { settingsFromBindings, type Bindings } from "./settings.ts";

// One app per isolate and bindings object: building it (settings, key import, driver) is not
// per-request work. Workers hand the same `env` to every request of an isolate.
const apps = new WeakMap<Bindings, App>();

function appFor(env: Bindings): App {
  let app = apps.get(env);
  if (!app) {
    const settings = settingsFromBindings(env);
    app = createApp({ sql: neonSqlFromSettings(settings), kv: createWorkersKv(env.LINKS), settings, runtime: "cloudflare" });
    apps.set(env, app);
  }
  return app;
}

export default {
  fetch(request: Request, env: Bindings): Response | Promise<Response> {
    let app: App;
    try {
      app = appFor(env);
    } catch (error) {
      // Workers have no start-up step to fail: an unusable setting is answered on every request.
      return misconfiguredResponse(error, consoleLogger);
    }
    return app.fetch(request);
  },
};
