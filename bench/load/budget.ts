// The most requests a run sends to its targets (--max-requests): every request is granted here
// first (setup, measured, staleness polls, cold starts, clean-up), so no phase, loop or retry
// can send more than the flag allows.

export class RequestBudget {
  private used = 0;

  constructor(readonly limit: number) {}

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
    if (this.grant(1) === 0) throw new BudgetSpentError(this.limit);
  }
}

export class BudgetSpentError extends Error {
  constructor(limit: number) {
    super(`--max-requests ${limit} reached: not sent`);
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
