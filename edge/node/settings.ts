// The Node server's own setting, beside core's: how many connections it holds open at once.
import { SettingsError } from "../../core/settings/settings.ts";
import { DEFAULT_SERVER_LIMITS, type ServerLimits } from "./server.ts";

export function readServerLimits(env: Record<string, string | undefined>): Pick<ServerLimits, "maxConnections"> {
  const text = env.MAX_CONNECTIONS?.trim();
  if (!text) return { maxConnections: DEFAULT_SERVER_LIMITS.maxConnections };
  const count = Number(text);
  if (!/^[0-9]+$/.test(text) || count < 1)
    throw new SettingsError("MAX_CONNECTIONS", "must be a whole number, at least 1");
  return { maxConnections: count };
}
