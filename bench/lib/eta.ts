// How long a command has left, printed as it goes. Each phase starts from an estimate; once a
// phase has finished some of its steps, the rest of it is timed at the pace those steps took,
// and the phases after it keep their estimates.
import { progress } from "./cli.ts";

export interface PlannedPhase {
  name: string;
  estimateMs: number;
  /** How many steps the phase reports (measured phases, pairs, pauses); 0 when it reports none. */
  steps: number;
}

export interface Position {
  /** The phase under way (plan.length once all are done). */
  phase: number;
  stepsDone: number;
  elapsedInPhaseMs: number;
}

/** What is left: the current phase at its measured pace (or estimate), then the later phases' estimates. */
export function remainingMs(plan: readonly PlannedPhase[], at: Position): number {
  const current = plan[at.phase];
  if (!current) return 0;
  const pace = at.stepsDone > 0 ? at.elapsedInPhaseMs / at.stepsDone : undefined;
  const currentLeft =
    pace === undefined
      ? Math.max(0, current.estimateMs - at.elapsedInPhaseMs)
      : pace * Math.max(0, current.steps - at.stepsDone);
  return currentLeft + plan.slice(at.phase + 1).reduce((sum, phase) => sum + phase.estimateMs, 0);
}

/** A duration as a person reads it: "45 s", "3 min 05 s". */
export function duration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, "0")} s`;
}

/** A command's phases as it goes: the plan at the start, each phase's start, the time left per step. */
export class PhaseClock {
  private at: Position = { phase: -1, stepsDone: 0, elapsedInPhaseMs: 0 };
  private phaseStart = 0;

  constructor(
    private readonly plan: readonly PlannedPhase[],
    private readonly print: (line: string) => void = progress,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The plan and its total, before anything runs. */
  announce(): void {
    const total = this.plan.reduce((sum, phase) => sum + phase.estimateMs, 0);
    const parts = this.plan.map((phase) => `${phase.name} ~${duration(phase.estimateMs)}`);
    this.print(`About ${duration(total)} in all (${parts.join(", ")})`);
  }

  /** A phase starts; an unknown name (a phase left out of the plan) only prints its name. */
  begin(name: string): void {
    const index = this.plan.findIndex((phase) => phase.name === name);
    if (index >= 0) {
      this.at = { phase: index, stepsDone: 0, elapsedInPhaseMs: 0 };
      this.phaseStart = this.now();
    }
    this.print(`— ${name}${index >= 0 ? `: about ${duration(this.left())} left` : ""}`);
  }

  /** One step of the current phase done; the text to add to its progress line. */
  step(): string {
    this.at.stepsDone++;
    return ` · about ${duration(this.left())} left`;
  }

  private left(): number {
    return remainingMs(this.plan, { ...this.at, elapsedInPhaseMs: this.now() - this.phaseStart });
  }
}
