// A small hand-written SVG: one group of bars per operation, one bar per target. The bar is the
// median latency (p50), the thin line above it reaches p95.
import { escapeXml, svgLegend } from "../lib/format.ts";
import type { Summary, TargetStatus } from "./report.ts";

const COLORS = ["#2563eb", "#f97316", "#16a34a", "#9333ea", "#dc2626", "#0891b2"];
const WIDTH = 920;
const HEIGHT = 440;
const MARGIN = { top: 48, right: 24, bottom: 84, left: 64 };

/** Ticks 1, 2, 5 × 10^n from `bottom` to `top` (both powers of ten). */
function logTicks(bottom: number, top: number): number[] {
  const ticks: number[] = [];
  for (let power = bottom; power <= top; power *= 10) {
    for (const step of [1, 2, 5]) if (step * power <= top) ticks.push(step * power);
  }
  return ticks;
}
export function latencyChart(
  summaries: readonly Summary[],
  title: string,
  statuses: readonly TargetStatus[] = [],
): string {
  const targets = [...new Set(summaries.map((s) => s.target))];
  const labels = [...new Set(summaries.map((s) => s.label))];
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  // Logarithmic: a target ten times slower must not flatten the others' bars to nothing.
  const p50s = summaries.map((s) => s.latencyMs.p50).filter((ms) => ms > 0);
  const p95s = summaries.map((s) => s.latencyMs.p95).filter((ms) => ms > 0);
  const bottom = 10 ** Math.floor(Math.log10(Math.min(1, ...p50s)));
  const top = 10 ** Math.ceil(Math.log10(Math.max(10, ...p95s)));
  const span = Math.log10(top) - Math.log10(bottom);
  const y = (ms: number) =>
    MARGIN.top +
    plotHeight -
    ((Math.log10(Math.min(Math.max(ms, bottom), top)) - Math.log10(bottom)) / span) * plotHeight;
  const groupWidth = plotWidth / Math.max(labels.length, 1);
  const barWidth = Math.min(36, (groupWidth * 0.8) / Math.max(targets.length, 1));

  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="system-ui, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="${MARGIN.left}" y="22" font-size="15" font-weight="600">${escapeXml(title)}</text>`,
    `<text x="${MARGIN.left}" y="38" fill="#555">bar: p50 latency in ms, logarithmic scale · line: up to p95</text>`,
  ];
  for (const value of logTicks(bottom, top)) {
    parts.push(
      `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(value)}" y2="${y(value)}" stroke="#e5e7eb"/>`,
      `<text x="${MARGIN.left - 8}" y="${y(value) + 4}" text-anchor="end" fill="#555">${value}</text>`,
    );
  }
  labels.forEach((label, g) => {
    const groupStart = MARGIN.left + g * groupWidth + (groupWidth - barWidth * targets.length) / 2;
    targets.forEach((target, r) => {
      const summary = summaries.find((s) => s.target === target && s.label === label);
      if (!summary || !Number.isFinite(summary.latencyMs.p50)) return;
      const x = groupStart + r * barWidth;
      const { p50, p95 } = summary.latencyMs;
      const color = COLORS[r % COLORS.length];
      parts.push(
        `<rect x="${x + 2}" y="${y(p50)}" width="${barWidth - 4}" height="${y(bottom) - y(p50)}" fill="${color}"><title>${escapeXml(`${target} · ${label}: p50 ${p50.toFixed(2)} ms, p95 ${p95.toFixed(2)} ms`)}</title></rect>`,
        `<line x1="${x + barWidth / 2}" x2="${x + barWidth / 2}" y1="${y(p50)}" y2="${y(p95)}" stroke="${color}" stroke-width="2"/>`,
        `<text x="${x + barWidth / 2}" y="${y(p95) - 4}" text-anchor="middle" font-size="10" fill="#333">${p50.toFixed(1)}</text>`,
      );
    });
    parts.push(
      `<text x="${MARGIN.left + g * groupWidth + groupWidth / 2}" y="${HEIGHT - MARGIN.bottom + 18}" text-anchor="middle">${escapeXml(label)}</text>`,
    );
  });
  parts.push(...svgLegend(targets, COLORS, { left: MARGIN.left, step: 130, y: HEIGHT - 20 }));
  const missing = statuses.filter((s) => !s.available).map((s) => s.target);
  if (missing.length > 0) {
    const x = MARGIN.left + targets.length * 130;
    parts.push(
      `<text x="${x}" y="${HEIGHT - 20}" fill="#777">not measured (unavailable): ${escapeXml(missing.join(", "))}</text>`,
    );
  }
  parts.push(
    `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(bottom)}" y2="${y(bottom)}" stroke="#333"/>`,
    "</svg>",
  );
  return `${parts.join("\n")}\n`;
}
