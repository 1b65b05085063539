// Which browser origins the API answers with CORS headers: exact origins, as a browser sends them.
import * as v from "valibot";
import { optional, settingsGroup, text } from "../settings/schema.ts";

// Not URL.canParse: Fastly's runtime lacks it.
function isOrigin(value: string): boolean {
  try {
    return /^https?:\/\//.test(value) && new URL(value).origin === value;
  } catch {
    return false;
  }
}

/** Comma-separated origins (`https://app.example.com`): scheme, host and port only, no path, no wildcard. */
const originList = v.pipe(
  text,
  v.transform((list) =>
    list
      .split(",")
      .map((origin) => origin.trim())
      .filter((origin) => origin !== ""),
  ),
  v.check((origins) => origins.every(isOrigin), "must be origins such as https://app.example.com, comma-separated"),
);

export const CORS_SETTINGS = settingsGroup({ CORS_ORIGINS: optional(originList) }, (values) => ({
  /** The browser origins answered with CORS headers; none by default. */
  corsOrigins: (values.CORS_ORIGINS ?? []) as readonly string[],
}));
