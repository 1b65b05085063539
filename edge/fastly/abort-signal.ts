// js-compute 3.46 has no AbortController or AbortSignal (checked: `typeof AbortSignal` is
// "undefined" inside the wasm), while the shared Neon SQL port bounds every round trip with an
// `AbortController`'s signal and jose's JWKS fetch with `AbortSignal.timeout`. This is the part of
// the standard they need, installed only where missing.

import { timeoutError } from "../../core/lib/deadline.ts";

const ABORT = Symbol("abort");
const TIMER = Symbol("timer");

class FastlyAbortSignal extends EventTarget {
  #aborted = false;
  #reason: unknown = undefined;
  onabort: ((event: Event) => void) | null = null;
  /** The pending timer of an `AbortSignal.timeout` signal. */
  [TIMER]?: ReturnType<typeof setTimeout>;

  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  throwIfAborted(): void {
    if (this.#aborted) throw this.#reason;
  }

  [ABORT](reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    const event = new Event("abort");
    this.onabort?.(event);
    this.dispatchEvent(event);
  }

  static abort(reason?: unknown): FastlyAbortSignal {
    const controller = new FastlyAbortController();
    controller.abort(reason);
    return controller.signal;
  }

  static timeout(milliseconds: number): FastlyAbortSignal {
    const controller = new FastlyAbortController();
    controller.signal[TIMER] = setTimeout(() => controller.abort(timeoutError()), milliseconds);
    return controller.signal;
  }
}

class FastlyAbortController {
  readonly signal = new FastlyAbortSignal();

  abort(reason: unknown = new DOMException("The operation was aborted.", "AbortError")): void {
    this.signal[ABORT](reason);
  }
}

export function installAbortSignal(scope: object = globalThis): void {
  if (!("AbortSignal" in scope)) Object.assign(scope, { AbortSignal: FastlyAbortSignal });
  if (!("AbortController" in scope)) Object.assign(scope, { AbortController: FastlyAbortController });
}

/**
 * Stops an `AbortSignal.timeout` signal's timer once what it bounded has settled: js-compute ends
 * an instance that finishes a request with a timer pending, so jose's JWKS fetch (bounded by
 * `AbortSignal.timeout`) would otherwise keep every instance from serving a second request.
 * Signals of other kinds are left alone.
 */
export function releaseTimeout(signal: AbortSignal): void {
  if (!(signal instanceof FastlyAbortSignal) || signal.aborted) return;
  clearTimeout(signal[TIMER]);
  signal[TIMER] = undefined;
}
