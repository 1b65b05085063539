// js-compute 3.46 has no AbortController or AbortSignal (checked: `typeof AbortSignal` is
// "undefined" inside the wasm), while the shared Neon SQL port bounds every round trip with an
// `AbortController`'s signal and jose's JWKS fetch with `AbortSignal.timeout`. This is the part of
// the standard they need, installed only where missing.

const ABORT = Symbol("abort");

class FastlyAbortSignal extends EventTarget {
  #aborted = false;
  #reason: unknown = undefined;
  onabort: ((event: Event) => void) | null = null;

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
    setTimeout(() => controller.abort(new DOMException("The operation timed out.", "TimeoutError")), milliseconds);
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
