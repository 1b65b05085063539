// A query parameter a route does not take is refused, as a body's unknown member is: answered as
// if it were absent, a misspelt cursor (`?cursor=` for `?after=`) would answer the first page
// forever, and a misspelt `consistency` would read the cache. The refusal names the parameter
// and those the route takes.
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../deps.ts";
import { type Issue, validationFailed } from "./validation.ts";

/**
 * The refusals of the names in a query: each of `given` (the query as parsed, by name) that the
 * route does not take, and a parameter without a name in `url`. Reads the parsed query, never the
 * URL again, but for the nameless one, and that only when the URL has a query at all.
 */
export function unknownParameterIssues(url: string, given: object, takes: readonly string[]): Issue[] {
  const issues: Issue[] = [];
  // `?=x` or `&=x`: a value under no name, which Hono's parser drops without a word. Only where a
  // parameter starts: a value may hold `?=` (`?after=a?=b`).
  const start = url.indexOf("?");
  if (start >= 0 && (url[start + 1] === "=" || url.includes("&=", start))) {
    issues.push({ message: "is a query parameter without a name", path: [""] });
  }
  for (const name of Object.keys(given)) {
    if (!takes.includes(name)) issues.push({ message: notTaken(takes), path: [name] });
  }
  return issues;
}

/**
 * For a route that takes no query: refuses any parameter (422). An empty query (`?` alone, or
 * `&` alone) carries none and passes, as it does everywhere.
 */
export const noQuery: MiddlewareHandler<AppEnv> = async (c, next) => {
  const { url } = c.req;
  if (url.includes("?")) {
    const issues = unknownParameterIssues(url, c.req.queries(), []);
    if (issues.length > 0) throw validationFailed(issues);
  }
  await next();
};

function notTaken(takes: readonly string[]): string {
  const refused = "is not a query parameter of this route, which takes";
  return takes.length === 0 ? `${refused} none` : `${refused} ${quotedList(takes)}`;
}

/** `` `after` and `limit` ``. */
function quotedList(names: readonly string[]): string {
  const quoted = names.map((name) => `\`${name}\``);
  return quoted.length === 1 ? quoted[0]! : `${quoted.slice(0, -1).join(", ")} and ${quoted.at(-1)}`;
}
