// `vitest` for `deno test`: deno.json maps the bare import here, so core's unit test files run
// unchanged under Deno. Suites become Deno tests and their cases test steps; `expect` is
// vitest's own (@vitest/expect over chai), so assertions mean exactly what they mean in vitest.
import {
  ASYMMETRIC_MATCHERS_OBJECT,
  chai,
  customMatchers,
  getState,
  JestAsymmetricMatchers,
  JestChaiExpect,
  JestExtend,
  setState,
  type ExpectStatic,
} from "@vitest/expect";
import { clearAllMocks, fn, isMockFunction, resetAllMocks, restoreAllMocks, spyOn } from "@vitest/spy";

// --- expect ---------------------------------------------------------------------------------

chai.use(JestExtend);
chai.use(JestChaiExpect);
chai.use(JestAsymmetricMatchers);

const expectFunction = (value: unknown, message?: string) => {
  setState({ assertionCalls: getState(expectFunction as unknown as ExpectStatic).assertionCalls + 1 }, expect);
  return chai.expect(value, message);
};
export const expect = expectFunction as unknown as ExpectStatic;
Object.assign(expect, chai.expect);
Object.assign(expect, (globalThis as Record<symbol, unknown>)[ASYMMETRIC_MATCHERS_OBJECT]);
Object.assign(expect, {
  getState: () => getState(expect),
  setState: (state: object) => setState(state, expect),
  extend: (matchers: object) => (chai.expect as unknown as { extend(e: unknown, m: object): void }).extend(expect, matchers),
  assertions: (expected: number) => setState({ expectedAssertionsNumber: expected }, expect),
  hasAssertions: () => setState({ isExpectingAssertions: true }, expect),
  unreachable: (message?: string) => chai.assert.fail(`expected${message ? ` "${message}" ` : " "}not to be reached`),
});
expect.extend(customMatchers);

function resetAssertionState() {
  setState({ assertionCalls: 0, expectedAssertionsNumber: null, isExpectingAssertions: false }, expect);
}

function checkAssertionCounts() {
  const { assertionCalls, expectedAssertionsNumber, isExpectingAssertions } = getState(expect);
  if (expectedAssertionsNumber !== null && assertionCalls !== expectedAssertionsNumber) {
    throw new Error(`expected number of assertions to be ${expectedAssertionsNumber}, but got ${assertionCalls}`);
  }
  if (isExpectingAssertions && assertionCalls === 0) throw new Error("expected any number of assertion, but got none");
}

export const vi = { fn, spyOn, isMockFunction, clearAllMocks, resetAllMocks, restoreAllMocks };

// --- suites and cases -----------------------------------------------------------------------

type Hook = () => unknown;
type Body = (...args: any[]) => unknown;

interface Case {
  name: string;
  body: Body;
  args: unknown[];
  skip: boolean;
}

interface Suite {
  name: string;
  parent: Suite | undefined;
  children: (Suite | Case)[];
  skip: boolean;
  hooks: { beforeAll: Hook[]; afterAll: Hook[]; beforeEach: Hook[]; afterEach: Hook[] };
}

interface DenoTestContext {
  step(definition: { name: string; fn: (t: DenoTestContext) => unknown; ignore?: boolean } & Sanitizers): Promise<boolean>;
}
interface Sanitizers {
  sanitizeOps: false;
  sanitizeResources: false;
  sanitizeExit: false;
}
interface DenoTesting {
  test(definition: { name: string; fn: (t: DenoTestContext) => unknown; ignore?: boolean } & Sanitizers): void;
}
const deno = (globalThis as unknown as { Deno: DenoTesting }).Deno;

// Hooks legitimately hold resources across cases (a server opened in beforeAll), as in vitest.
const unsanitized: Sanitizers = { sanitizeOps: false, sanitizeResources: false, sanitizeExit: false };

const newSuite = (name: string, parent: Suite | undefined, skip: boolean): Suite => ({
  name,
  parent,
  children: [],
  skip,
  hooks: { beforeAll: [], afterAll: [], beforeEach: [], afterEach: [] },
});

// `deno test` evaluates each test file in an isolate of its own, so this module's state is the
// file's: `root` holds the file's top-level cases and hooks, as vitest's file suite does.
const root = newSuite("", undefined, false);
let current = root;
let rootStarted: Promise<void> | undefined;

function addSuite(name: string, body: () => unknown, skip: boolean) {
  const suite = newSuite(name, current, skip || current.skip);
  const outer = current;
  current = suite;
  try {
    if (body() instanceof Promise) throw new Error(`describe("${name}") must be synchronous`);
  } finally {
    current = outer;
  }
  addChild(suite);
}

function addCase(name: string, body: Body, args: unknown[], skip: boolean) {
  addChild({ name, body, args, skip: skip || current.skip });
}

/** Nested children run as steps of their suite; the file's own children each become a Deno test. */
function addChild(child: Suite | Case) {
  current.children.push(child);
  if (current !== root) return;
  deno.test({
    name: child.name,
    ignore: child.skip,
    ...unsanitized,
    fn: async (t) => {
      // The file's beforeAll hooks run once, before its first test; its afterAll after the last.
      rootStarted ??= runHooks(root.hooks.beforeAll);
      try {
        await rootStarted;
        await ("children" in child ? runSuite(child, t) : runCase(child, root));
      } finally {
        if (child === root.children.findLast((c) => !c.skip)) await runHooks([...root.hooks.afterAll].reverse());
      }
    },
  });
}

async function runHooks(hooks: Hook[]): Promise<void> {
  for (const hook of hooks) await hook();
}

async function runSuite(suite: Suite, t: DenoTestContext): Promise<void> {
  await runHooks(suite.hooks.beforeAll);
  try {
    for (const child of suite.children) {
      const run = "children" in child ? (s: DenoTestContext) => runSuite(child, s) : () => runCase(child, suite);
      await t.step({ name: child.name, ignore: child.skip, ...unsanitized, fn: run });
    }
  } finally {
    await runHooks([...suite.hooks.afterAll].reverse());
  }
}

async function runCase(test: Case, suite: Suite): Promise<void> {
  const chain: Suite[] = [];
  for (let s: Suite | undefined = suite; s; s = s.parent) chain.unshift(s);
  for (const s of chain) await runHooks(s.hooks.beforeEach);
  try {
    resetAssertionState();
    // vitest hands a context as the only argument of a plain case; `each` cases get their row.
    await test.body(...(test.args.length > 0 ? test.args : [{ expect }]));
    checkAssertionCounts();
  } finally {
    for (const s of [...chain].reverse()) await runHooks([...s.hooks.afterEach].reverse());
  }
}

function hook(kind: keyof Suite["hooks"]) {
  return (fn: Hook) => {
    current.hooks[kind].push(fn);
  };
}

export const beforeAll = hook("beforeAll");
export const afterAll = hook("afterAll");
export const beforeEach = hook("beforeEach");
export const afterEach = hook("afterEach");

// --- each -----------------------------------------------------------------------------------

/** vitest's name templates: printf-style %s %d %i %f %j %o %%, %# (index), $field of object rows. */
function caseName(template: string, row: unknown, index: number): string {
  const values = Array.isArray(row) ? [...row] : [row];
  let name = template.replace(/%[sdifjo#%]/g, (token) => {
    if (token === "%%") return "%";
    if (token === "%#") return String(index);
    if (values.length === 0) return token;
    const value = values.shift();
    if (token === "%d" || token === "%i" || token === "%f") return String(Number(value));
    if (token === "%j" || token === "%o") return JSON.stringify(value);
    return typeof value === "string" ? value : formatValue(value);
  });
  if (row !== null && typeof row === "object" && !Array.isArray(row)) {
    name = name.replace(/\$([A-Za-z_][\w.]*)/g, (token, path: string) => {
      const value = path.split(".").reduce<unknown>((o, k) => (o as Record<string, unknown>)?.[k], row);
      return value === undefined ? token : formatValue(value);
    });
  }
  return name;
}

const formatValue = (value: unknown) => (typeof value === "string" ? JSON.stringify(value) : String(value));

const rowArgs = (row: unknown) => (Array.isArray(row) ? row : [row]);

// --- the exported API -----------------------------------------------------------------------

function makeIt(skip: boolean) {
  const register = (name: string, body?: Body) => addCase(name, body ?? (() => {}), [], skip || !body);
  return Object.assign(register, {
    each: (table: readonly unknown[]) => (template: string, body: Body) =>
      table.forEach((row, index) => addCase(caseName(template, row, index), body, rowArgs(row), skip)),
  });
}

const runIt = makeIt(false);
const skipIt = makeIt(true);
export const it = Object.assign(runIt, {
  skip: skipIt,
  todo: (name: string) => addCase(name, () => {}, [], true),
  // Cases of one file run one after another here; the outcome of each is the same.
  concurrent: runIt,
  sequential: runIt,
  only: () => {
    throw new Error("it.only is not supported under deno test");
  },
});
export const test = it;

function makeDescribe(skip: boolean) {
  const register = (name: string, body: () => unknown) => addSuite(name, body, skip);
  return Object.assign(register, {
    each: (table: readonly unknown[]) => (template: string, body: Body) =>
      table.forEach((row, index) => addSuite(caseName(template, row, index), () => body(...rowArgs(row)), skip)),
  });
}

export const describe = Object.assign(makeDescribe(false), {
  skip: makeDescribe(true),
  concurrent: makeDescribe(false),
  sequential: makeDescribe(false),
  only: () => {
    throw new Error("describe.only is not supported under deno test");
  },
});
export const suite = describe;
