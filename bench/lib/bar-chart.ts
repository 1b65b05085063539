// The one bar chart every bench draws, in its SVG files and in its HTML page alike: groups of
// bars, one per series, each with a whisker for its interval. The title wraps to the chart's width
// and the height grows with it; each bar's value is written under the axis, where no whisker
// reaches, and turned upright when the bar is narrower than the text.
import { escapeXml, svgLegend } from "./format.ts";

export const SERIES_COLORS = ["#2563eb", "#f97316", "#16a34a", "#9333ea", "#dc2626", "#0891b2"];

export interface Bar {
  group: string;
  series: string;
  value: number;
  /** The whisker, when the bar has one. */
  low?: number;
  high?: number;
  /** A second figure drawn as a small tick (p95 beside a p50 bar, say). */
  marker?: number;
  /** Written under the axis. */
  label: string;
  tooltip: string;
}

export interface BarChartSpec {
  title: string;
  /** What bar, whisker and marker mean. */
  legend: string;
  bars: readonly Bar[];
  scale: "log" | "linear";
  tickLabel: (value: number) => string;
  width?: number;
  /** A line under the legend (what was not measured, say). */
  footnote?: string;
  /** A reference line across the plot (100 % of a ceiling, say). */
  reference?: number;
}

const TITLE_SIZE = 15;
const TEXT_SIZE = 12;
const VALUE_SIZE = 10;
const PLOT_HEIGHT = 280;
const LEGEND_STEP = 150;
// system-ui's widest common glyphs; erring wide keeps text inside its box.
const CHAR_WIDTH = 0.62;

/** Roughly how wide `text` is at `size` px: wide enough that what fits this estimate fits. */
export const textWidth = (text: string, size: number) => text.length * size * CHAR_WIDTH;

/** Words on lines no wider than `width` px at `size`; a single overlong word gets a line of its own. */
export function wrapText(text: string, width: number, size: number): string[] {
  const lines: string[] = [];
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const last = lines.at(-1);
    if (last !== undefined && textWidth(`${last} ${word}`, size) <= width) lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(word);
  }
  return lines;
}

/** A title (bold) and an explanation under it, wrapped; returns the SVG and the height used. */
export function svgHeading(title: string, explanation: string, left: number, width: number) {
  const titleLines = wrapText(title, width - left * 2, TITLE_SIZE);
  const textLines = wrapText(explanation, width - left * 2, TEXT_SIZE);
  const parts: string[] = [];
  let y = 8;
  for (const line of titleLines) {
    y += TITLE_SIZE + 4;
    parts.push(
      `<text class="title" x="${left}" y="${y}" font-size="${TITLE_SIZE}" font-weight="600">${escapeXml(line)}</text>`,
    );
  }
  for (const line of textLines) {
    y += TEXT_SIZE + 4;
    parts.push(`<text x="${left}" y="${y}" fill="#555">${escapeXml(line)}</text>`);
  }
  return { svg: parts, height: y + 12 };
}

/** Ticks 1, 2, 5 × 10^n from `bottom` to `top` (both powers of ten). */
function logTicks(bottom: number, top: number): number[] {
  const ticks: number[] = [];
  for (let power = bottom; power <= top; power *= 10) {
    for (const step of [1, 2, 5]) if (step * power <= top) ticks.push(step * power);
  }
  return ticks;
}

function linearTicks(top: number): number[] {
  const step = 10 ** Math.floor(Math.log10(top / 2));
  const nice = [1, 2, 2.5, 5].map((m) => m * step).find((s) => top / s <= 8) ?? step * 10;
  return Array.from({ length: Math.floor(top / nice) + 1 }, (_, i) => i * nice);
}

/** The value axis: from a value to its height in the plot, and its ticks. */
function valueAxis(bars: readonly Bar[], scale: BarChartSpec["scale"], plotTop: number) {
  const highs = bars.flatMap((b) => [b.value, b.high ?? b.value, b.marker ?? b.value]).filter(Number.isFinite);
  const plotBottom = plotTop + PLOT_HEIGHT;
  if (scale === "linear") {
    const top = Math.max(1e-9, ...highs) * 1.08;
    const y = (v: number) => plotBottom - (Math.min(Math.max(v, 0), top) / top) * PLOT_HEIGHT;
    return { y, ticks: linearTicks(top), floor: 0, plotBottom };
  }
  // Logarithmic: a target ten times slower must not flatten the others' bars to nothing.
  const lows = bars.flatMap((b) => [b.value, b.low ?? b.value]).filter((v) => Number.isFinite(v) && v > 0);
  const bottom = 10 ** Math.floor(Math.log10(Math.min(1, ...lows)));
  const top = 10 ** Math.ceil(Math.log10(Math.max(10, ...highs)));
  const span = Math.log10(top) - Math.log10(bottom);
  const y = (v: number) =>
    plotBottom - ((Math.log10(Math.min(Math.max(v, bottom), top)) - Math.log10(bottom)) / span) * PLOT_HEIGHT;
  return { y, ticks: logTicks(bottom, top), floor: bottom, plotBottom };
}

function drawBar(bar: Bar, x: number, width: number, color: string, y: (v: number) => number, floor: number) {
  const mid = x + width / 2;
  const parts = [
    `<rect class="bar" x="${x + 2}" y="${y(bar.value)}" width="${Math.max(width - 4, 1)}" height="${Math.max(y(floor) - y(bar.value), 1)}" fill="${color}"><title>${escapeXml(bar.tooltip)}</title></rect>`,
  ];
  if (bar.low !== undefined && bar.high !== undefined && Number.isFinite(bar.low) && Number.isFinite(bar.high)) {
    const cap = Math.min(6, width / 3);
    parts.push(
      `<path class="whisker" d="M${mid} ${y(bar.low)}V${y(bar.high)}M${mid - cap} ${y(bar.low)}h${cap * 2}M${mid - cap} ${y(bar.high)}h${cap * 2}" stroke="#111" stroke-width="1.5" fill="none"/>`,
    );
  }
  if (bar.marker !== undefined && Number.isFinite(bar.marker)) {
    parts.push(
      `<path class="marker" d="M${x + 2} ${y(bar.marker)}h${Math.max(width - 4, 1)}" stroke="${color}" stroke-width="2" stroke-dasharray="3 2"/>`,
    );
  }
  return parts;
}

/** The value under the axis: level when it fits the bar's width, else upright. */
function valueLabel(text: string, mid: number, width: number, axisY: number) {
  const upright = textWidth(text, VALUE_SIZE) > width - 2;
  const y = axisY + 12;
  const transform = upright ? ` transform="rotate(-90 ${mid} ${y})" text-anchor="end" dy="3"` : ` text-anchor="middle"`;
  const shift = upright ? ` x="${mid}" y="${y - 4}"` : ` x="${mid}" y="${y}"`;
  return {
    svg: `<text class="value"${shift}${transform} font-size="${VALUE_SIZE}" fill="#333">${escapeXml(text)}</text>`,
    depth: upright ? textWidth(text, VALUE_SIZE) + 4 : VALUE_SIZE + 4,
  };
}

interface Layout {
  width: number;
  left: number;
  right: number;
  groups: string[];
  series: string[];
  groupWidth: number;
  barWidth: number;
}

function layout(spec: BarChartSpec): Layout {
  const width = spec.width ?? 920;
  const [left, right] = [64, 24];
  const groups = [...new Set(spec.bars.map((b) => b.group))];
  const series = [...new Set(spec.bars.map((b) => b.series))];
  const groupWidth = (width - left - right) / Math.max(groups.length, 1);
  const barWidth = Math.min(40, (groupWidth * 0.85) / Math.max(series.length, 1));
  return { width, left, right, groups, series, groupWidth, barWidth };
}

/** Bars, whiskers and markers, and each bar's value under the axis; returns how deep the values reach. */
function drawBars(spec: BarChartSpec, at: Layout, axis: ReturnType<typeof valueAxis>) {
  const svg: string[] = [];
  let depth = VALUE_SIZE + 4;
  at.groups.forEach((group, g) => {
    const start = at.left + g * at.groupWidth + (at.groupWidth - at.barWidth * at.series.length) / 2;
    at.series.forEach((name, s) => {
      const bar = spec.bars.find((b) => b.group === group && b.series === name);
      if (!bar || !Number.isFinite(bar.value)) return;
      const x = start + s * at.barWidth;
      svg.push(...drawBar(bar, x, at.barWidth, SERIES_COLORS[s % SERIES_COLORS.length]!, axis.y, axis.floor));
      const label = valueLabel(bar.label, x + at.barWidth / 2, at.barWidth, axis.plotBottom);
      svg.push(label.svg);
      depth = Math.max(depth, label.depth);
    });
  });
  return { svg, depth };
}

/** Each group's name under its bars, wrapped to the group's width; returns the lines' bottom. */
function drawGroupNames(at: Layout, top: number) {
  const svg: string[] = [];
  let bottom = top;
  at.groups.forEach((group, g) => {
    const x = at.left + g * at.groupWidth + at.groupWidth / 2;
    for (const [i, line] of wrapText(group, at.groupWidth - 6, TEXT_SIZE).entries()) {
      svg.push(`<text class="group" x="${x}" y="${top + i * 14}" text-anchor="middle">${escapeXml(line)}</text>`);
      bottom = Math.max(bottom, top + i * 14);
    }
  });
  return { svg, bottom };
}

/** The series' legend in as many rows as the width needs; returns the last row's baseline. */
function drawLegend(at: Layout, top: number) {
  const perRow = Math.max(1, Math.floor((at.width - at.left - at.right) / LEGEND_STEP));
  const svg: string[] = [];
  let y = top;
  for (let first = 0; first < at.series.length; first += perRow) {
    y = top + (first / perRow) * 18;
    const names = at.series.slice(first, first + perRow);
    const colors = names.map((_, i) => SERIES_COLORS[(first + i) % SERIES_COLORS.length]!);
    svg.push(...svgLegend(names, colors, { left: at.left, step: LEGEND_STEP, y }));
  }
  return { svg, bottom: y };
}

export function barChart(spec: BarChartSpec): string {
  const at = layout(spec);
  const heading = svgHeading(spec.title, spec.legend, at.left, at.width);
  const axis = valueAxis(spec.bars, spec.scale, heading.height);
  const body: string[] = [];
  const rule = (value: number, stroke: string) =>
    `<line x1="${at.left}" x2="${at.width - at.right}" y1="${axis.y(value)}" y2="${axis.y(value)}" stroke="${stroke}"/>`;
  for (const tick of axis.ticks) {
    body.push(
      rule(tick, "#e5e7eb"),
      `<text x="${at.left - 8}" y="${axis.y(tick) + 4}" text-anchor="end" fill="#555">${escapeXml(spec.tickLabel(tick))}</text>`,
    );
  }
  if (spec.reference !== undefined) body.push(rule(spec.reference, "#6b7280"));
  const bars = drawBars(spec, at, axis);
  const names = drawGroupNames(at, axis.plotBottom + bars.depth + 16);
  const legend = drawLegend(at, names.bottom + 28);
  let height = legend.bottom;
  const footnote = spec.footnote ? wrapText(spec.footnote, at.width - at.left * 2, TEXT_SIZE) : [];
  for (const line of footnote) {
    height += 18;
    body.push(`<text x="${at.left}" y="${height}" fill="#777">${escapeXml(line)}</text>`);
  }
  return svgDocument(at.width, height + 12, [
    ...heading.svg,
    ...body,
    ...bars.svg,
    ...names.svg,
    ...legend.svg,
    `<line x1="${at.left}" x2="${at.width - at.right}" y1="${axis.plotBottom}" y2="${axis.plotBottom}" stroke="#333"/>`,
  ]);
}

/** An SVG of this size on a white ground. */
export const svgDocument = (width: number, height: number, parts: readonly string[]) =>
  [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="${TEXT_SIZE}">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    ...parts,
    "</svg>",
    "",
  ].join("\n");
