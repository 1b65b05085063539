// Which browser origins the API answers with CORS headers: exact origins, as a browser sends them.
import { parsedUrl } from "../lib/url.ts";
import { commaList, optional, settingsGroup } from "../settings/schema.ts";

/** `value` when it is an origin as a browser sends it; undefined otherwise. */
const origin = (value: string): string | undefined =>
  /^https?:\/\//.test(value) && parsedUrl(value)?.origin === value ? value : undefined;

/** Comma-separated origins (`https://app.example.com`): scheme, host and port only, no path, no wildcard. */
const originList = commaList(origin, "origins such as https://app.example.com");

export const CORS_SETTINGS = settingsGroup({ CORS_ORIGINS: optional(originList) }, (values) => ({
  /** The browser origins answered with CORS headers; none by default. */
  corsOrigins: (values.CORS_ORIGINS ?? []) as readonly string[],
}));
