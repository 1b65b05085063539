// A query parameter a route does not take is refused, as a body's unknown member is: answered as
// if it were absent, a misspelt cursor (`?cursor=` for `?after=`) would answer the first page
// forever, and a misspelt `consistency` would read the cache. The refusal names the parameter
// and, where the client plainly meant one the route takes, that one.
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../deps.ts";
import { type Issue, validationFailed } from "./validation.ts";

/** Names other APIs give a parameter, by the name this API gives it (compared as `comparable` writes them). */
const SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  after: ["cursor", "page", "pagetoken", "offset", "start", "startingafter", "from", "since", "next", "token"],
  limit: ["size", "pagesize", "perpage", "count", "max", "top", "first", "take", "n"],
  consistency: ["strong", "eventual", "consistent", "fresh", "cache", "nocache", "mode"],
};

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
    if (!takes.includes(name)) issues.push({ message: notTaken(name, takes), path: [name] });
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

function notTaken(name: string, takes: readonly string[]): string {
  const refused = "is not a query parameter of this route";
  if (takes.length === 0) return `${refused}, which takes none`;
  const meant = meantParameter(name, takes);
  return meant ? `${refused}: it takes \`${meant}\`` : `${refused}, which takes ${quotedList(takes)}`;
}

/** The parameter of `takes` that `name` spells another way, misspells, or says in other APIs' words. */
export function meantParameter(name: string, takes: readonly string[]): string | undefined {
  const given = comparable(name);
  const synonym = takes.find((taken) => SYNONYMS[taken]?.includes(given));
  if (synonym) return synonym;
  let best: { taken: string; distance: number } | undefined;
  for (const taken of takes) {
    const distance = editDistance(given, comparable(taken));
    if (distance <= typoAllowance(taken) && (!best || distance < best.distance)) best = { taken, distance };
  }
  return best?.taken;
}

/** Case, `-` and `_` say nothing of which parameter was meant: `Page_Size` is `pagesize`. */
const comparable = (name: string) => name.toLowerCase().replace(/[-_]/g, "");

/** One slip in a short name, two in a longer one: `limt`, `lmt` and `Limits` are `limit`, `sort` is not. */
const typoAllowance = (name: string) => (name.length < 5 ? 1 : 2);

/**
 * Edits (insert, delete, substitute, swap two neighbours) from `a` to `b`, or a number past any
 * allowance when their lengths alone say so: a long name costs no table.
 */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return Number.POSITIVE_INFINITY;
  const rows = [...Array(a.length + 1)].map((_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i]!;
    const above = rows[i - 1]!;
    for (let j = 1; j <= b.length; j++) {
      const substitution = above[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      row[j] = Math.min(above[j]! + 1, row[j - 1]! + 1, substitution);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j]!, rows[i - 2]![j - 2]! + 1);
      }
    }
  }
  return rows[a.length]![b.length]!;
}

/** `` `after` and `limit` ``. */
function quotedList(names: readonly string[]): string {
  const quoted = names.map((name) => `\`${name}\``);
  return quoted.length === 1 ? quoted[0]! : `${quoted.slice(0, -1).join(", ")} and ${quoted.at(-1)}`;
}
