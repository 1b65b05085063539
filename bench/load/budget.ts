// The most requests a run sends to its targets (--max-requests): every request is granted here
// first (setup, measured, staleness polls, cold starts, clean-up), so no phase, loop or retry
// can send more than the flag allows.

export class RequestBudget {
  private used = 0;

  /** `flag`: the --max-requests this budget is part of, as errors name it. */
  constructor(
    readonly limit: number,
    readonly flag = limit,
  ) {}

  get sent(): number {
    return this.used;
  }

  /** Grants up to `wanted` requests; answers how many may be sent. */
  grant(wanted: number): number {
    const granted = Math.max(0, Math.min(wanted, this.limit - this.used));
    this.used += granted;
    return granted;
  }

  /** One request, or an error saying the budget is spent. */
  take(): void {
    if (this.grant(1) === 0) throw new BudgetSpentError(this.flag);
  }
}

export const budgetSpent = (flag: number) => `--max-requests ${flag} reached: not sent`;

export class BudgetSpentError extends Error {
  constructor(flag: number) {
    super(budgetSpent(flag));
    this.name = "BudgetSpentError";
  }
}

/** fetch, counted against the budget. */
export function budgetedFetch(budget: RequestBudget): typeof fetch {
  return (input, init) => {
    budget.take();
    return fetch(input, init);
  };
}
