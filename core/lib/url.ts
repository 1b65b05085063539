/**
 * `value` as a URL, or undefined where it is none. Not URL.canParse: Fastly's runtime lacks it.
 * Deno hands the app a request whose target and Host make no URL as the client sent it
 * (`Host: exa mple`); settings are read through it too.
 */
export function parsedUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/**
 * Whether `url` carries a user or password. The Fetch standard refuses such a URL, so every
 * request to it would fail, and Node's error, logged with each, quotes it, password included.
 */
export const holdsCredentials = (url: URL): boolean => url.username !== "" || url.password !== "";
