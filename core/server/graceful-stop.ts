// How a self-hosted server stops when its platform replaces it (SIGTERM) or a terminal asks
// (SIGINT): stop accepting, answer the requests in flight, exit 0. Orchestrators kill at about
// 30 s, so requests outlasting the grace time lose to an exit 1 with a line saying so.
import { consoleLogger, errorMessage, type Logger } from "../log.ts";

export const STOP_SIGNALS = ["SIGTERM", "SIGINT"] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

export const SHUTDOWN_GRACE_MS = 25_000;

export interface GracefulStop {
  /** Registers `handler` for `signal` with the runtime. */
  onSignal(signal: StopSignal, handler: () => void): void;
  /** Stops accepting; resolves once every request in flight is answered. */
  close(): Promise<void>;
  exit(code: number): void;
  graceMs?: number;
  logger?: Logger;
}

/**
 * Stops on the first of STOP_SIGNALS. A repeat is ignored: a terminal's Ctrl-C reaches both the
 * server and the task runner that relays it, and the grace time already bounds the wait.
 */
export function stopGracefullyOnSignals(stop: GracefulStop): void {
  const { graceMs = SHUTDOWN_GRACE_MS, logger = consoleLogger } = stop;
  let stopping = false;
  const onSignal = (signal: StopSignal) => {
    if (stopping) return;
    stopping = true;
    logger.log("info", "stopping", { signal });
    const timer = setTimeout(() => {
      logger.log("error", "stop_timeout", { graceMs });
      stop.exit(1);
    }, graceMs);
    void stop
      .close()
      .then(
        () => 0,
        (error: unknown) => {
          logger.log("error", "stop_failed", { error: errorMessage(error) });
          return 1;
        },
      )
      .then((code) => {
        clearTimeout(timer);
        stop.exit(code);
      });
  };
  for (const signal of STOP_SIGNALS) stop.onSignal(signal, () => onSignal(signal));
}
