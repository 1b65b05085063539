// The numbering comparison as a small SVG: per scenario, one bar per strategy at its median ratio
// to the ceiling (taken within each round), a line from the lowest to the highest round's ratio.
import { escapeXml, svgLegend } from "../lib/format.ts";
import type { NumberingSummary } from "./report.ts";

const COLORS = ["#2563eb", "#f97316", "#16a34a", "#9ca3af"];
const WIDTH = 720;
const HEIGHT = 360;
const MARGIN = { top: 48, right: 24, bottom: 64, left: 56 };

export function numberingChart(summaries: readonly NumberingSummary[], title: string): string {
  const scenarios = [...new Set(summaries.map((s) => s.scenario))];
  const strategies = [...new Set(summaries.map((s) => s.strategy))];
  const top = Math.max(1.2, ...summaries.map((s) => (Number.isFinite(s.ratioMax) ? s.ratioMax : 0))) * 1.05;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const y = (ratio: number) => MARGIN.top + plotHeight - (Math.max(0, ratio) / top) * plotHeight;
  const groupWidth = (WIDTH - MARGIN.left - MARGIN.right) / Math.max(scenarios.length, 1);
  const barWidth = Math.min(48, (groupWidth * 0.8) / Math.max(strategies.length, 1));
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="system-ui, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="${MARGIN.left}" y="22" font-size="15" font-weight="600">${escapeXml(title)}</text>`,
    `<text x="${MARGIN.left}" y="38" fill="#555">bar: median of the rounds' ratios to the ceiling · line: lowest to highest round</text>`,
  ];
  for (let tick = 0; tick <= top; tick += 0.25) {
    parts.push(
      `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(tick)}" y2="${y(tick)}" stroke="${tick === 1 ? "#9ca3af" : "#e5e7eb"}"/>`,
      `<text x="${MARGIN.left - 8}" y="${y(tick) + 4}" text-anchor="end" fill="#555">${Math.round(tick * 100)} %</text>`,
    );
  }
  scenarios.forEach((scenario, g) => {
    const start = MARGIN.left + g * groupWidth + (groupWidth - barWidth * strategies.length) / 2;
    strategies.forEach((strategy, i) => {
      const s = summaries.find((summary) => summary.scenario === scenario && summary.strategy === strategy);
      if (!s || !Number.isFinite(s.ratioToCeiling)) return;
      const x = start + i * barWidth;
      const color = COLORS[i % COLORS.length];
      parts.push(
        `<rect x="${x + 3}" y="${y(s.ratioToCeiling)}" width="${barWidth - 6}" height="${y(0) - y(s.ratioToCeiling)}" fill="${color}"><title>${escapeXml(`${scenario} · ${strategy}: ${(s.ratioToCeiling * 100).toFixed(0)} %`)}</title></rect>`,
        `<line x1="${x + barWidth / 2}" x2="${x + barWidth / 2}" y1="${y(s.ratioMin)}" y2="${y(s.ratioMax)}" stroke="#111" stroke-width="2"/>`,
        `<text x="${x + barWidth / 2}" y="${y(s.ratioMax) - 4}" text-anchor="middle" font-size="10">${(s.ratioToCeiling * 100).toFixed(0)}</text>`,
      );
    });
    parts.push(
      `<text x="${MARGIN.left + g * groupWidth + groupWidth / 2}" y="${HEIGHT - MARGIN.bottom + 18}" text-anchor="middle">${escapeXml(scenario)}</text>`,
    );
  });
  parts.push(
    ...svgLegend(strategies, COLORS, { left: MARGIN.left, step: 150, y: HEIGHT - 16 }),
    `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(0)}" y2="${y(0)}" stroke="#333"/>`,
    "</svg>",
  );
  return `${parts.join("\n")}\n`;
}
