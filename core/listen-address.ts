// Where a self-hosted server (Node, Deno) listens: HOST and PORT from its environment. A deployed
// server must be reachable from outside its container, so the default is every interface; the
// local launchers pass HOST=127.0.0.1.
import { SettingsError } from "./settings.ts";

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
