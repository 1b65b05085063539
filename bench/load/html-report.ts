// One page a person opens: bench.json made into self-contained HTML (inline SVG and CSS, nothing
// fetched, no script), with the same charts as the SVG files. It is made from the JSON alone, so a
// saved bench.json gives the same page (`npm run bench -- --html bench.json`).
import { writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { readJsonFile, UsageError } from "../lib/cli.ts";
import { escapeXml } from "../lib/format.ts";
import type { BenchJson } from "./bench-json.ts";
import { latencyChart } from "./chart.ts";
import { COLD_HEADER, coldRows } from "./cold.ts";
import { costTables, htmlTable, ratiosTable, resultsTable, stalenessMatrix } from "./html-tables.ts";
import { splitChart } from "./split-chart.ts";

/** bench.json's `format`: a reader checks it before anything else. */
export const RESULTS_FORMAT = "edge-race-free-bench";

const STYLE = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px auto; max-width: 960px; color: #111; padding: 0 12px; }
h1 { font-size: 22px; } h2 { font-size: 17px; margin-top: 32px; } h3 { font-size: 14px; }
table { border-collapse: collapse; margin: 8px 0; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #d1d5db; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f3f4f6; }
figure { margin: 12px 0; } figure svg { max-width: 100%; height: auto; }
.meta { color: #555; }
`;

function targetsList(json: BenchJson): string {
  const items = json.targets.map((t) => {
    const platform = t.platform ? ` — ${t.platform}` : "";
    const state = t.available ? "" : ` (unavailable: ${t.reason ?? "unknown"})`;
    return `<li>${escapeXml(`${t.target}${platform}${state}`)}</li>`;
  });
  return `<ul>${items.join("")}</ul>`;
}

const figure = (svg: string) => `<figure>${svg}</figure>`;

function coldTable(json: BenchJson): string {
  if (!json.coldStarts?.length) return "";
  return `<section><h2>Cold starts: the first request after a pause</h2>${htmlTable(COLD_HEADER, coldRows(json.coldStarts))}</section>`;
}

/** The whole page, from a run's bench.json. */
export function benchHtml(json: BenchJson): string {
  const title = `Bench run of ${json.finishedAt}`;
  const meta = [
    `Command: ${json.command}`,
    `Machine: ${json.machine.cpus} × ${json.machine.cpuModel}, Node ${json.machine.node}`,
    ...(json.database ? [`Database: ${json.database}`] : []),
  ];
  return [
    "<!doctype html>",
    `<html lang="en"><head><meta charset="utf-8"><title>${escapeXml(title)}</title><style>${STYLE}</style></head><body>`,
    `<h1>${escapeXml(title)}</h1>`,
    ...meta.map((line) => `<p class="meta">${escapeXml(line)}</p>`),
    `<h2>Targets</h2>${targetsList(json)}`,
    figure(latencyChart(json.results, "Latency per target and operation", json.targets)),
    resultsTable(json.results),
    ratiosTable(json),
    `<section><h2>Where the time went</h2>${figure(splitChart(json.results, "Where the time went, per target and operation"))}</section>`,
    stalenessMatrix(json),
    coldTable(json),
    costTables(json),
    "</body></html>",
    "",
  ].join("\n");
}

/** bench.html beside a saved bench.json; refuses a file that is not this bench's results. */
export async function writeHtmlFromJson(jsonPath: string): Promise<string> {
  const saved = (await readJsonFile(jsonPath)) as Partial<BenchJson> & {
    format?: string;
    version?: number;
  };
  if (saved?.format !== RESULTS_FORMAT || !Array.isArray(saved.results) || !Array.isArray(saved.targets)) {
    throw new UsageError(`--html ${jsonPath}: not a results file of this bench (format ${RESULTS_FORMAT})`);
  }
  const htmlPath = join(dirname(jsonPath), "bench.html");
  await writeFile(htmlPath, benchHtml(saved as BenchJson));
  return htmlPath;
}
