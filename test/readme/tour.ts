// The README's curl tour as data: the shell block after `<!-- tour -->`. A command is a line that
// is not a comment (a trailing `\` continues it); the comment lines right after it, with no blank
// line between, are what it prints; `…` stands for text that differs from run to run (ids,
// timestamps, ETags). Comment lines after a blank line are narration.

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
