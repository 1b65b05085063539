// Stopping on SIGINT and SIGTERM, in order: stop accepting, answer what is in flight, close the
// database. Some runtimes (Miniflare) register signal handlers that exit at once; those are
// removed. Every other listener stays: a process runner (the `tsx` command) relays signals through
// a listener of its own, and removing it makes the runner kill this process mid-stop.
const SIGNALS = ["SIGINT", "SIGTERM"] as const;

type Listener = (...args: unknown[]) => void;

/** Remembers the current signal listeners; `dropAddedSince()` removes those added after. */
export function signalListenerSnapshot() {
  const before = new Map(SIGNALS.map((signal) => [signal, new Set(process.listeners(signal) as Listener[])]));
  return {
    dropAddedSince() {
      for (const signal of SIGNALS) {
        for (const listener of process.listeners(signal) as Listener[]) {
          if (!before.get(signal)?.has(listener)) process.off(signal, listener);
        }
      }
    },
  };
}

// A terminal's Ctrl-C signals the whole process group; a process runner (npm, the `tsx` command)
// may relay it to this process too. A repeat within this window is that same Ctrl-C, not a second
// one.
const SAME_SIGNAL_MS = 1_000;

/**
 * Runs `stop` once on the first SIGINT/SIGTERM, then exits 0 (1 if it failed); a second signal
 * (after SAME_SIGNAL_MS), or `stop` outlasting `graceMs`, exits at once.
 */
export function stopOnSignals(stop: (signal: string) => Promise<void>, graceMs = 20_000): void {
  let stoppingSince: number | undefined;
  const onSignal = (signal: string) => {
    if (stoppingSince !== undefined) {
      if (performance.now() - stoppingSince < SAME_SIGNAL_MS) return;
      console.error(`${signal} again: exiting without waiting`);
      process.exit(130);
    }
    stoppingSince = performance.now();
    setTimeout(() => {
      console.error(`stop took longer than ${graceMs / 1000} s: exiting`);
      process.exit(1);
    }, graceMs).unref();
    stop(signal).then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`stop failed: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      },
    );
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
}
