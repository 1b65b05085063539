// The tables of the HTML report, each from what bench.json holds; a section whose field the run
// did not write is left out.
import { percentile } from "../../dev/support/stats.ts";
import { barChart } from "../lib/bar-chart.ts";
import { escapeXml, fixed } from "../lib/format.ts";
import type { BenchJson, ResultRow } from "./bench-json.ts";
import { reportedP50 } from "./chart.ts";
import { COST_HEADER, costRows } from "./cost.ts";

/** An HTML table; cells are text, escaped here. */
export function htmlTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const cells = (tag: string, row: readonly string[]) =>
    `<tr>${row.map((cell) => `<${tag}>${escapeXml(cell)}</${tag}>`).join("")}</tr>`;
  return `<table><thead>${cells("th", header)}</thead><tbody>${rows.map((row) => cells("td", row)).join("")}</tbody></table>`;
}

const section = (title: string, body: string) => `<section><h2>${escapeXml(title)}</h2>${body}</section>`;

function loadModel(load: ResultRow["load"]): string {
  if (!load) return "";
  return load.model === "open" ? `open, ${load.ratePerSecond}/s` : `closed, ${load.concurrency} in flight`;
}

/** A percentile's figure, or why there is none: too few samples behind it. */
const percentileCell = ({ ms, samples }: { ms: number | null; samples: number }) =>
  ms === null ? `n/a (${samples} samples)` : `${fixed(ms, 2)} (${samples})`;

export function resultsTable(results: readonly ResultRow[]): string {
  const ps = [...new Set(results.flatMap((r) => (r.percentiles ?? []).map((p) => p.p)))]
    .filter((p) => p !== 50) // the p50 has its own column, with its interval
    .sort((a, b) => a - b);
  const withLoad = results.some((r) => r.load);
  const header = [
    "target",
    "operation",
    ...(withLoad ? ["load"] : []),
    "req/s median",
    "p50 ms (interval)",
    ...(ps.length > 0 ? ps.map((p) => `p${p} ms (samples)`) : ["p95 ms", "p99 ms"]),
    "errors",
  ];
  const rows = results.map((r) => {
    const interval = r.p50Interval ?? { low: r.p50Range.min, high: r.p50Range.max };
    const tail =
      ps.length > 0
        ? ps.map((p) => {
            const found = r.percentiles?.find((q) => q.p === p);
            return found ? percentileCell(found) : "";
          })
        : [fixed(r.latencyMs.p95, 1), fixed(r.latencyMs.p99, 1)];
    return [
      r.target,
      r.label,
      ...(withLoad ? [loadModel(r.load)] : []),
      fixed(r.perSecond.median, 0),
      `${fixed(reportedP50(r), 2)} (${fixed(interval.low, 2)}–${fixed(interval.high, 2)})`,
      ...tail,
      `${r.errors}/${r.requests}`,
    ];
  });
  const note = results.some((r) => r.p50Interval)
    ? "The p50's interval is its 95 % interval."
    : "The p50's interval is the lowest to the highest round's p50.";
  return section("Latency and throughput", `${htmlTable(header, rows)}<p>${note}</p>`);
}

export function ratiosTable(json: BenchJson): string {
  if (!json.ratios?.length) return "";
  const rows = json.ratios.map((r) => [
    r.label,
    `${r.numerator.target} · ${r.numerator.operation}`,
    `${r.denominator.target} · ${r.denominator.operation}`,
    `${fixed(r.median, 2)}×`,
    `${fixed(r.low, 2)}–${fixed(r.high, 2)}×`,
    r.low <= 1 && r.high >= 1 ? "no significant difference" : r.median > 1 ? "slower" : "faster",
  ]);
  const header = ["ratio", "numerator", "denominator", "median", "95 % interval", "reading"];
  const chart = barChart({
    title: "Ratios, with their 95 % intervals",
    legend:
      "bar: the median ratio (written under the axis) · whisker: its 95 % interval · grey line: 1×, no difference",
    bars: json.ratios.map((r) => ({
      group: r.label,
      series: "ratio",
      value: r.median,
      low: r.low,
      high: r.high,
      label: `${fixed(r.median, 2)}×`,
      tooltip: `${r.label}: ${fixed(r.median, 2)}× (${fixed(r.low, 2)}–${fixed(r.high, 2)}×)`,
    })),
    scale: "linear",
    tickLabel: (ratio) => `${Number(ratio.toFixed(2))}×`,
    reference: 1,
  });
  return section("Ratios, with their 95 % intervals", `<figure>${chart}</figure>${htmlTable(header, rows)}`);
}

/** Who read whose unlink how late: one row per target unlinked through, one column per target read through. */
export function stalenessMatrix(json: BenchJson): string {
  const pairs = json.staleness ?? [];
  if (pairs.length === 0) return "";
  const names = [...new Set(pairs.flatMap((p) => [p.from, p.to]))];
  const cell = (from: string, to: string) => {
    const pair = pairs.find((p) => p.from === from && p.to === to);
    if (!pair) return "—";
    if (pair.samples.length === 0) return pair.error ? `failed: ${pair.error}` : "no samples";
    return `p50 ${fixed(percentile(pair.samples, 50), 0)} · max ${fixed(Math.max(...pair.samples), 0)} (${pair.samples.length})`;
  };
  const rows = names.map((from) => [from, ...names.map((to) => cell(from, to))]);
  return section(
    "Cross-edge staleness after an unlink, ms",
    `${htmlTable(["unlink through ↓ · read through →", ...names], rows)}<p>Until the target read through stops answering the old owner; (samples).</p>`,
  );
}

export function costTables(json: BenchJson): string {
  const cost = json.cost;
  if (!cost) return "";
  const perTarget = htmlTable(COST_HEADER, costRows(cost));
  const prices = htmlTable(
    ["item", "USD", "per", "price as of", "source"],
    cost.prices.map((p) => [p.item, String(p.usd), p.per, p.date, p.source]),
  );
  const assumptions = `<ul>${cost.assumptions.map((a) => `<li>${escapeXml(a)}</li>`).join("")}</ul>`;
  return section(
    "Cost per million operations",
    `${perTarget}<h3>Prices (${escapeXml(cost.table)})</h3>${prices}<h3>Assumptions</h3>${assumptions}`,
  );
}
