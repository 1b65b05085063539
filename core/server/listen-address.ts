// Where a self-hosted server (Node, Deno) listens: HOST and PORT from its environment. A deployed
// server must be reachable from outside its container, so the default is every interface; the
// local launchers pass HOST=127.0.0.1.
import * as v from "valibot";
import { SettingsError } from "../settings/error.ts";
import { namesOf, parseGroup, settingsGroup, text, wholeNumber, withDefault } from "../settings/schema.ts";

/** HOST and PORT: every interface, port 8080, unless set. */
export const LISTEN_SETTINGS = settingsGroup(
  { HOST: withDefault(v.pipe(text, v.trim()), "0.0.0.0"), PORT: withDefault(wholeNumber(0, 65_535), "8080") },
  (values) => ({ hostname: values.HOST, port: values.PORT }),
);

export const LISTEN_SETTING_NAMES = namesOf(LISTEN_SETTINGS);

export function listenAddress(get: (name: string) => string | undefined): { hostname: string; port: number } {
  return parseGroup(LISTEN_SETTINGS, Object.fromEntries(LISTEN_SETTING_NAMES.map((name) => [name, get(name)])));
}

/**
 * The setting to blame when listening failed: HOST that names no address of this machine, PORT
 * in use or reserved. Both runtimes' servers throw these as plain errors with a stack trace;
 * undefined for any other failure, which is then no setting's fault.
 */
export function listenFailure(error: unknown): SettingsError | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  switch (code) {
    case "EADDRINUSE":
      return new SettingsError("PORT", "is already in use on HOST");
    case "EACCES":
      return new SettingsError("PORT", "needs privileges the server lacks (a port below 1024)");
    case "EADDRNOTAVAIL":
      return new SettingsError("HOST", "is not an address of this machine");
    case "ENOTFOUND":
    case "EAI_AGAIN":
    case "EAI_NONAME":
      return new SettingsError("HOST", "does not resolve to an address");
  }
  // One runtime reports a failed name lookup with this message and no code.
  if (typeof message === "string" && message.startsWith("failed to lookup address")) {
    return new SettingsError("HOST", "does not resolve to an address");
  }
  return undefined;
}
