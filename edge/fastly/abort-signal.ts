// js-compute 3.46 has no AbortController or AbortSignal (checked: `typeof AbortSignal` is
// "undefined" inside the wasm), while every bounded call (a Neon round trip, a KV call, the JWKS
// fetch) goes through core's withDeadline, which aborts an `AbortController`'s signal. This is the
// part of the standard it needs, installed only where missing. No `AbortSignal.timeout`: its timer
// would outlive the call it bounds, and js-compute ends an instance that finishes a request with a
// timer pending; withDeadline clears its own.

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
