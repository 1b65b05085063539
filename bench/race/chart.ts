// The numbering comparison, drawn with the bench's one bar chart: per scenario, one bar per
// strategy at its median ratio to the ceiling (taken within each round), a whisker from the
// lowest to the highest round's ratio.
import { barChart } from "../lib/bar-chart.ts";
import type { NumberingSummary } from "./report.ts";

const asPercent = (ratio: number) => `${Math.round(ratio * 100)} %`;

type Charted = Pick<NumberingSummary, "scenario" | "strategy" | "ratioToCeiling" | "ratioMin" | "ratioMax">;

export function numberingChart(summaries: readonly Charted[], title: string): string {
  return barChart({
    title,
    legend:
      "bar: median of the rounds' ratios to the ceiling (written under the axis) · whisker: lowest to highest round",
    bars: summaries
      .filter((s) => Number.isFinite(s.ratioToCeiling))
      .map((s) => ({
        group: s.scenario,
        series: s.strategy,
        value: s.ratioToCeiling,
        low: s.ratioMin,
        high: s.ratioMax,
        label: asPercent(s.ratioToCeiling),
        tooltip: `${s.scenario} · ${s.strategy}: ${asPercent(s.ratioToCeiling)}`,
      })),
    scale: "linear",
    tickLabel: asPercent,
    reference: 1,
    width: 720,
  });
}
