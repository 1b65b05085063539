// Where a self-hosted server (Node, Deno) listens: HOST and PORT from its environment. A deployed
// server must be reachable from outside its container, so the default is every interface; the
// local launchers pass HOST=127.0.0.1.
import { SettingsError } from "../settings/settings.ts";

export const LISTEN_SETTING_NAMES = ["HOST", "PORT"] as const;
const DEFAULT_HOST = "0.0.0.0";
const DEFAULT_PORT = 8080;

interface ListenAddress {
  hostname: string;
  port: number;
}

export function listenAddress(get: (name: string) => string | undefined): ListenAddress {
  const hostname = get("HOST")?.trim() || DEFAULT_HOST;
  const portText = get("PORT")?.trim() || String(DEFAULT_PORT);
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65_535) throw new SettingsError("PORT", "must be a port number (0-65535)");
  return { hostname, port };
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
