// The Node server's own settings, beside core's: how many connections it holds open at once, and
// whether it serves the interactive API reference at /docs.
import { LISTEN_SETTING_NAMES } from "../../core/server/listen-address.ts";
import {
  MAX_INT,
  namesOf,
  onOff,
  parseGroup,
  type RawSettings,
  settingsGroup,
  wholeNumber,
  withDefault,
} from "../../core/settings/schema.ts";
import { SETTING_NAMES } from "../../core/settings/settings.ts";
import { DEFAULT_SERVER_LIMITS } from "./server.ts";

export const NODE_SETTINGS = settingsGroup(
  {
    MAX_CONNECTIONS: withDefault(wholeNumber(1, MAX_INT), String(DEFAULT_SERVER_LIMITS.maxConnections)),
    API_DOCS: withDefault(onOff, "off"),
  },
  (values) => ({ maxConnections: values.MAX_CONNECTIONS, apiDocs: values.API_DOCS }),
);

/** The Node server's settings from its environment; the first unusable one throws a SettingsError naming it. */
export const readNodeSettings = (env: RawSettings) => parseGroup(NODE_SETTINGS, env);

/** The variables the Node entry reads: core's settings, HOST and PORT, and the server's own. */
export const NODE_ENV_NAMES = [...SETTING_NAMES, ...LISTEN_SETTING_NAMES, ...namesOf(NODE_SETTINGS)] as const;
