// A KV store whose calls a test can make fail, hang, or pause at a chosen moment.
import type { KvCache, KvMethod } from "../../core/ports/kv.ts";

type KvBehaviour = "ok" | "throw" | "hang";
type Operation = Exclude<KvMethod, "getMany">; // without bulk reads: the sync reads one by one

interface HeldPut {
  /** Resolves once the held put has been called (its ttl is already decided). */
  entered: Promise<void>;
  /** Lets the held put reach the store. */
  release(): void;
  /** Resolves once the held put is in the store, even if its caller gave up waiting. */
  landed: Promise<void>;
}

interface ControlledKv extends KvCache {
  behaviour: Record<Operation, KvBehaviour>;
  /** Every operation back to "ok". */
  heal(): void;
  /** Pauses the next put until `release()`. */
  holdNextPut(): HeldPut;
  /** Refuses the next call of `operation` (as Workers KV refuses a second write to a key within a second). */
  refuseNext(operation: Operation): void;
}

export function controlledKv(inner: KvCache): ControlledKv {
  const behaviour: Record<Operation, KvBehaviour> = { get: "ok", put: "ok", delete: "ok", list: "ok" };
  let hold: { enter(): void; gate: Promise<void>; land(): void } | undefined;
  const refused = new Set<Operation>();

  async function gate(operation: Operation): Promise<void> {
    if (refused.delete(operation)) throw new Error(`injected refusal of ${operation}`);
    if (behaviour[operation] === "throw") throw new Error(`injected ${operation} failure`);
    if (behaviour[operation] === "hang") await new Promise<never>(() => {});
  }

  return {
    behaviour,
    heal() {
      Object.assign(behaviour, { get: "ok", put: "ok", delete: "ok", list: "ok" });
      refused.clear();
    },
    holdNextPut() {
      let enter!: () => void;
      let release!: () => void;
      let land!: () => void;
      const entered = new Promise<void>((resolve) => (enter = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      const landed = new Promise<void>((resolve) => (land = resolve));
      hold = { enter, gate: released, land };
      return { entered, release, landed };
    },
    refuseNext: (operation) => void refused.add(operation),
    get: async (key) => (await gate("get"), inner.get(key)),
    async put(key, value, options) {
      await gate("put");
      const held = hold;
      hold = undefined;
      if (!held) return inner.put(key, value, options);
      held.enter();
      await held.gate;
      await inner.put(key, value, options);
      held.land();
    },
    delete: async (key) => (await gate("delete"), inner.delete(key)),
    list: async (prefix, options) => (await gate("list"), inner.list(prefix, options)),
  };
}
