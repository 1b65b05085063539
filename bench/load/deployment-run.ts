// Deployments already running, given only by URL: the same operations, rounds and reports, in a
// tenant of the run's own, signed in with the run's tokens, within its request budget; what it
// made is removed at the end where the API allows it.
import { randomBytes } from "node:crypto";
import { progress } from "../lib/cli.ts";
import type { TokenSource } from "../lib/tokens.ts";
import { budgetedFetch, type RequestBudget } from "./budget.ts";
import { type Cleanup, removeWhatWasMade } from "./cleanup.ts";
import { checkTarget } from "./deployments.ts";
import { startLoadGenerator } from "./load-generator.ts";
import { describeLoad, type RunOutcome } from "./results.ts";
import type { Target } from "./rounds.ts";
import { measureRun } from "./run.ts";
import type { RunSettings } from "./run-settings.ts";
import type { TargetStatus } from "./summary.ts";

/** A poll every 250 ms for at most a minute: a few hundred requests per sample, at worst. */
const STALENESS_POLL_MS = 250;
const STALENESS_TIMEOUT_MS = 60_000;

export interface Budgets {
  run: RequestBudget;
  /** Held back for the clean-up: one DELETE per link or asset the run can make. */
  cleanup: RequestBudget;
}

export async function runOnDeployments(
  opts: RunSettings,
  targets: readonly Target[],
  tokens: TokenSource,
  budgets: Budgets,
): Promise<RunOutcome> {
  const tenant = `bench-${randomBytes(4).toString("hex")}`;
  // A given token carries its own tenant, so every request goes there whatever tenant it asks for.
  const tenantReported = tokens.oneIdentity ? "the given token's" : tenant;
  progress(`Tenant of this run: ${tenantReported}; signing in with ${tokens.describe}`);
  const statuses: TargetStatus[] = [];
  for (const target of targets) {
    const status = await checkTarget(target, budgetedFetch(budgets.run));
    statuses.push(status);
    progress(
      status.available
        ? `${target.name}: ${target.url} answers (runtime ${status.runtime ?? "unnamed"}, Server-Timing ${status.serverTiming ? "on" : "OFF"})`
        : `${target.name}: UNAVAILABLE — ${status.reason}`,
    );
  }
  const available = targets.filter((_, i) => statuses[i]!.available);
  const load = startLoadGenerator();
  const session = { opts, tenant, tokens, load, budget: budgets.run, state: new Map(), baselines: new Map() };
  try {
    let cleanup: Cleanup = { unlinked: 0, assetsDeleted: 0, failures: [] };
    const extent = { stalenessLanes: opts.concurrency, pollMs: STALENESS_POLL_MS, timeoutMs: STALENESS_TIMEOUT_MS };
    const measured = await measureRun(session, available, extent, async () => {
      cleanup = await removeWhatWasMade(session, available, budgetedFetch(budgets.cleanup));
      progress(`Removed: ${cleanup.unlinked} links, ${cleanup.assetsDeleted} assets; documents stay`);
    });
    const withoutTiming = statuses.filter((s) => s.available && !s.serverTiming).map((s) => s.target);
    return {
      ...measured,
      statuses,
      database: "the deployments' own",
      usageProbe: {},
      cleanup,
      notes: [
        ...(withoutTiming.length
          ? [`no Server-Timing from ${withoutTiming.join(", ")}: set SERVER_TIMING=on there to see where the time goes`]
          : []),
        `tenant ${tenantReported}: its links and assets were removed (${cleanup.unlinked} unlinked, ${cleanup.assetsDeleted} assets deleted${cleanup.failures.length ? `; not removed: ${cleanup.failures.slice(0, 3).join(", ")}` : ""}); its documents stay (the API deletes none)`,
      ],
      extra: { tenant: tenantReported },
      title: `${available.map((t) => t.name).join(", ")}, ${describeLoad(opts)}`,
      header: `deployments ${targets.map((t) => `${t.name} (${statuses.find((s) => s.target === t.name)?.runtime ?? "?"})`).join(", ")}, tenant ${tenantReported}`,
    };
  } finally {
    await load.close();
  }
}
