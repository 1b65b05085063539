// Where the time went, drawn: one horizontal bar per target and operation, its mean client time
// cut into network, token verification, database, KV store, rate limiting and the app's own code.
import { svgDocument, svgHeading } from "../lib/bar-chart.ts";
import { escapeXml, svgLegend } from "../lib/format.ts";
import type { Split } from "./split.ts";

const PARTS = ["network", "auth", "db", "kv", "limit", "app"] as const;
const COLORS = ["#94a3b8", "#f97316", "#2563eb", "#16a34a", "#dc2626", "#9333ea"];
const WIDTH = 920;
const ROW = 22;
const MARGIN = { right: 80, bottom: 44, left: 260 };

interface Row {
  target: string;
  label: string;
  split: Split | null;
}

export function splitChart(rows: readonly Row[], title: string): string {
  const timed = rows.filter((row): row is Row & { split: Split } => row.split !== null);
  const heading = svgHeading(
    title,
    "mean ms per request, from each answer's Server-Timing; the bar is the client's time",
    16,
    WIDTH,
  );
  const top = heading.height;
  const height = top + Math.max(timed.length, 1) * ROW + MARGIN.bottom;
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const longest = Math.max(1e-9, ...timed.map((row) => row.split.meanMs.client));
  const x = (ms: number) => (Math.max(ms, 0) / longest) * plotWidth;
  const parts = [...heading.svg];
  if (timed.length === 0)
    parts.push(`<text x="16" y="${top + 14}" fill="#777">no answer carried Server-Timing (SERVER_TIMING=on)</text>`);
  timed.forEach((row, i) => {
    const y = top + i * ROW;
    let left = MARGIN.left;
    parts.push(
      `<text x="${MARGIN.left - 8}" y="${y + 14}" text-anchor="end">${escapeXml(`${row.target} · ${row.label}`)}</text>`,
    );
    PARTS.forEach((part, p) => {
      const ms = row.split.meanMs[part] ?? 0;
      if (ms <= 0) return; // unused here (no limiter, no clock between I/O on Workers)
      const width = x(ms);
      parts.push(
        `<rect class="bar" x="${left}" y="${y + 3}" width="${width}" height="${ROW - 6}" fill="${COLORS[p]}"><title>${escapeXml(`${row.target} · ${row.label} · ${part}: ${ms.toFixed(2)} ms`)}</title></rect>`,
      );
      left += width;
    });
    parts.push(`<text x="${left + 6}" y="${y + 14}" fill="#333">${row.split.meanMs.client.toFixed(1)}</text>`);
  });
  parts.push(...svgLegend(PARTS, COLORS, { left: MARGIN.left, step: 110, y: height - 16 }));
  return svgDocument(WIDTH, height, parts);
}
