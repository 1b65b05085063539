// The README's curl tour as data: the shell block after `<!-- tour -->`. A command is a line that
// is not a comment (a trailing `\` continues it); the comment lines right after it, with no blank
// line between, are what it prints; `…` stands for text that differs from run to run (ids,
// timestamps, ETags). Comment lines after a blank line are narration.

/** Where the README's tour sends its requests. */
export const README_URL = "http://127.0.0.1:8787";
/** The file the tour keeps a response's headers in for the next step. */
const README_HEADERS_FILE = "/tmp/h";
/** Printed after each step, so that one run's output splits into the steps'. */
export const STEP_MARK = "@@tour-step@@";

export interface TourStep {
  command: string;
  expected: string[];
}

export function readTour(readme: string): TourStep[] {
  const start = readme.indexOf("<!-- tour -->");
  if (start < 0) throw new Error("README.md has no <!-- tour --> block");
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(start));
  if (!block) throw new Error("the tour marker is not followed by a ```sh block");
  const steps: TourStep[] = [];
  let current: TourStep | undefined;
  let continued = false;
  for (const line of block[1]!.split("\n")) {
    if (continued && current) {
      current.command += `\n${line}`;
      continued = line.endsWith("\\");
    } else if (line.startsWith("#")) {
      current?.expected.push(line.replace(/^# ?/, ""));
    } else if (line.trim() === "") {
      current = undefined;
    } else {
      current = { command: line, expected: [] };
      steps.push(current);
      continued = line.endsWith("\\");
    }
  }
  return steps;
}

/** Whether a step printed what the README shows (`…` matches anything on its line). */
export function matchesExpected(output: string, expected: string[]): boolean {
  const lines = output.replace(/\r/g, "").split("\n");
  while (lines.length && lines.at(-1) === "") lines.pop();
  if (lines.length !== expected.length) return false;
  return expected.every((want, i) => lineMatcher(want).test(lines[i]!));
}

function lineMatcher(pattern: string): RegExp {
  const parts = pattern.split("…").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${parts.join(".*")}$`);
}

/**
 * The tour as one bash script against `url`: each step, `STEP_MARK` on a line of its own, then
 * `between(i)`. The headers the README keeps in /tmp/h go to a file the script makes and removes:
 * tours run side by side (one per runtime in `npm test`), and each must read back its own ETag.
 */
export function tourScript(steps: TourStep[], url: string, between: (index: number) => string = () => ""): string {
  const script = steps.map(({ command }, i) => {
    const local = command.replaceAll(README_URL, url).replaceAll(README_HEADERS_FILE, '"$TOUR_HEADERS"');
    return `${local}\nprintf '\\n${STEP_MARK}\\n'\n${between(i)}`;
  });
  return ["TOUR_HEADERS=$(mktemp)", ...script, 'rm -f "$TOUR_HEADERS"'].join("\n");
}

/** What each step printed, from the output of a `tourScript`. */
export const stepOutputs = (stdout: string): string[] =>
  stdout.split(`${STEP_MARK}\n`).map((output) => output.replace(/^\n+/, ""));
