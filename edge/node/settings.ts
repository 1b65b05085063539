// The Node server's own settings, beside core's: how many connections it holds open at once, and
// whether it serves the interactive API reference at /docs.
import {
  MAX_INT,
  onOff,
  parseGroup,
  type RawSettings,
  settingsGroup,
  wholeNumber,
  withDefault,
} from "../../core/settings/schema.ts";
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
