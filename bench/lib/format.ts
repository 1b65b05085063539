// Plain-text, Markdown and SVG rendering shared by both commands.

/** Text for an SVG/XML element or attribute. */
export const escapeXml = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");

/** A chart's legend: a swatch and a name per series, `step` apart from `left`, text baseline at `y`. */
export function svgLegend(
  names: readonly string[],
  colors: readonly string[],
  { left, step, y }: { left: number; step: number; y: number },
): string[] {
  return names.flatMap((name, i) => [
    `<rect x="${left + i * step}" y="${y - 10}" width="12" height="12" fill="${colors[i % colors.length]}"/>`,
    `<text x="${left + i * step + 18}" y="${y}">${escapeXml(name)}</text>`,
  ]);
}

/** A fixed number of decimals, or "n/a" for a value that was not measured. */
export function fixed(value: number | null | undefined, decimals = 1): string {
  return value === null || value === undefined || Number.isNaN(value) ? "n/a" : value.toFixed(decimals);
}

export const percent = (value: number, decimals = 0) =>
  Number.isNaN(value) ? "n/a" : `${(value * 100).toFixed(decimals)} %`;

/** A GitHub-flavoured Markdown table; numeric-looking columns are right-aligned. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const numeric = header.map(
    (_, i) => rows.length > 0 && rows.every((row) => /^[-+±~\d.,% ×()–]+$|^n\/a$/.test(row[i] ?? "")),
  );
  const line = (cells: readonly string[]) => `| ${cells.map((cell) => cell.replaceAll("|", "\\|")).join(" | ")} |`;
  const rule = `| ${header.map((_, i) => (numeric[i] ? "---:" : "---")).join(" | ")} |`;
  return [line(header), rule, ...rows.map(line)].join("\n");
}

/** The same table, aligned for a terminal. */
export function textTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => (row[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}
