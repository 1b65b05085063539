// bench.html as a person sees it: rendered by Chromium, every chart has bars of real size, no
// title or label runs out of its chart or onto a whisker, and nothing is fetched. Without
// Chromium, what the page holds is still checked from its text.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeWithChromium, launchChromium } from "../../dev/support/chromium.ts";
import { numberingChart } from "../race/chart.ts";
import type { BenchJson } from "./bench-json.ts";
import { latencyChart } from "./chart.ts";
import { benchHtml, RESULTS_FORMAT, writeHtmlFromJson } from "./html-report.ts";
import { fullBenchJson } from "./report-fixture.ts";

/** A run that wrote none of the optional fields. */
const plainJson: BenchJson = {
  ...fullBenchJson,
  ratios: undefined,
  cost: undefined,
  staleness: [],
  coldStarts: [],
  targets: fullBenchJson.targets.map(({ target, available }) => ({ target, available })),
  results: fullBenchJson.results.map(({ percentiles, p50Interval, load, ...rest }) => rest),
};

describe("bench.html's content", () => {
  const full = benchHtml(fullBenchJson);
  const plain = benchHtml(plainJson);

  it("shows a tail percentile with too few samples as such, not as a figure", () => {
    expect(full).toContain("<td>n/a (600 samples)</td>");
    expect(full).toContain("<th>p99.9 ms (samples)</th>");
    expect(plain).not.toContain("samples)</th>");
  });

  it("renders ratios, cost, staleness, load models and platforms only when the run wrote them", () => {
    for (const text of ["Ratios, with their 95 % intervals", "Cost per million operations", "Cross-edge staleness"])
      expect([full.includes(text), plain.includes(text)]).toEqual([true, false]);
    expect(full).toContain("<td>0.91–1.20×</td><td>no significant difference</td>");
    expect(full).toContain("<td>open, 200/s</td>");
    expect(plain).not.toContain("closed, 4 in flight");
    // The cost row: what the target is priced as, what one request used, and n/a where a price is unknown.
    expect(full).toContain("<td>fastly-viceroy</td><td>Fastly</td><td>1 KV get, 412 bytes out</td><td>n/a</td>");
  });

  it("gives as each p50 the median of the rounds' p50s, the figure its interval is of, as bench.md does", () => {
    // Three rounds whose p50s lie well above the pooled requests' p50 (a long fast round and two slow ones).
    const [row] = fullBenchJson.results;
    const rounds = [{ p50: 2.1 }, { p50: 2.4 }, { p50: 2.2 }];
    const shifted = { ...row!, latencyMs: { ...row!.latencyMs, p50: 1 }, rounds, p50Interval: { low: 2.1, high: 2.4 } };
    const page = benchHtml({ ...fullBenchJson, results: [shifted] });
    expect(page).toContain("<td>2.20 (2.10–2.40)</td>");
    const chart = latencyChart([shifted], "t");
    expect(chart).toContain("p50 2.20 ms (95 % interval 2.10–2.40)");
    expect(chart).not.toContain("p50 1.00 ms");
  });

  it("needs nothing from elsewhere: no script, no link, no remote source", () => {
    expect(full).not.toMatch(/<script|<link|src=|@import|url\(/i);
  });
});

describe("--html: the page again from a saved bench.json", () => {
  it("writes bench.html beside the results file, and refuses a file that is not one", async () => {
    const dir = await mkdtemp(join(tmpdir(), "bench-html-"));
    try {
      const saved = join(dir, "bench.json");
      await writeFile(saved, JSON.stringify({ format: RESULTS_FORMAT, version: 2, ...fullBenchJson }));
      expect(await writeHtmlFromJson(saved)).toBe(join(dir, "bench.html"));
      expect(await readFile(join(dir, "bench.html"), "utf8")).toBe(benchHtml(fullBenchJson));
      const other = join(dir, "sync.json");
      await writeFile(other, JSON.stringify({ command: "npm run bench:sync", results: [] }));
      await expect(writeHtmlFromJson(other)).rejects.toThrow(/not a results file of this bench/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

const SIX_TARGETS = ["node", "cloudflare", "deno", "fastly-viceroy", "staging-workers", "prod-fastly"];
const LONG_TITLE =
  "Latency per target and operation (PostgreSQL 15.20 (Debian 15.20-0+deb12u1), concurrency 4, database round trip 20 ms, six targets)";

/** Many narrow bars and a title longer than the chart: the layout's hard case. */
const crowdedChart = latencyChart(
  SIX_TARGETS.flatMap((target, t) =>
    ["a", "b", "c", "d", "e", "f", "g", "h"].map((label, o) => ({
      target,
      label: `operation ${label} with a long name`,
      latencyMs: { p50: 100 + t * 37 + o, p95: 300 + t * 50 },
      p50Range: { min: 90 + t * 37, max: 130 + t * 37 + o },
    })),
  ),
  LONG_TITLE,
);

describeWithChromium("bench.html and the SVG charts in Chromium", () => {
  let browser: Browser | undefined;
  let page: Page;
  const requested: string[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
    page.on("request", (request) => requested.push(request.url()));
  }, 60_000);
  afterAll(() => browser?.close());

  /** Per SVG on the page: its bars' sizes, and the text that leaves its box or crosses a whisker. */
  const inspect = () =>
    page.$$eval("svg", (svgs) =>
      svgs.map((svg) => {
        const box = svg.getBoundingClientRect();
        const inside = (r: DOMRect) =>
          r.left >= box.left - 0.5 &&
          r.right <= box.right + 0.5 &&
          r.top >= box.top - 0.5 &&
          r.bottom <= box.bottom + 0.5;
        const meets = (a: DOMRect, b: DOMRect) =>
          a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
        const whiskers = [...svg.querySelectorAll(".whisker")].map((w) => w.getBoundingClientRect());
        const texts = [...svg.querySelectorAll("text")];
        return {
          bars: [...svg.querySelectorAll(".bar")].map((b) => b.getBoundingClientRect()).map((r) => r.width * r.height),
          titles: texts.filter((t) => t.classList.contains("title")).length,
          outside: texts.filter((t) => !inside(t.getBoundingClientRect())).map((t) => t.textContent),
          onWhiskers: texts
            .filter((t) => whiskers.some((w) => meets(t.getBoundingClientRect(), w)))
            .map((t) => t.textContent),
        };
      }),
    );

  it("draws every chart of the page with bars, its text inside it and clear of the whiskers", async () => {
    await page.setContent(benchHtml(fullBenchJson));
    const charts = await inspect();
    expect(charts).toHaveLength(3); // latency, ratios, where the time went
    for (const chart of charts) {
      expect(chart.titles).toBeGreaterThan(0);
      expect(chart.bars.length).toBeGreaterThan(0);
      expect(chart.bars.every((area) => area > 0)).toBe(true);
      expect(chart.outside).toEqual([]);
      expect(chart.onWhiskers).toEqual([]);
    }
    expect(requested.filter((url) => !url.startsWith("about:") && !url.startsWith("data:"))).toEqual([]);
    await page.screenshot({ path: "/tmp/bench-report.png", fullPage: true });
  });

  it("fits a long title and the values of narrow bars in bench.svg and race.svg", async () => {
    const race = numberingChart(
      (["sequence-row", "advisory-lock", "ceiling"] as const).flatMap((strategy, i) =>
        (["hot tenant", "many tenants"] as const).map((scenario) => ({
          scenario,
          strategy,
          ratioToCeiling: 0.5 + i * 0.2,
          ratioMin: 0.45 + i * 0.2,
          ratioMax: 0.6 + i * 0.2,
        })),
      ),
      `${LONG_TITLE} — numbering`,
    );
    await page.setContent(`<body style="margin:0">${crowdedChart}${race}</body>`);
    const charts = await inspect();
    for (const chart of charts) {
      expect(chart.titles).toBeGreaterThan(1); // wrapped, not cut off
      expect(chart.bars.every((area) => area > 0)).toBe(true);
      expect(chart.outside).toEqual([]);
      expect(chart.onWhiskers).toEqual([]);
    }
    expect(charts[0]!.bars).toHaveLength(48);
  });
});
