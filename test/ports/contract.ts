// A port's contract as plain data: named cases over one opened implementation, asserting with
// node:assert, so the same cases run under vitest and under `deno test` (Deno supports
// node:assert) without either runner's internals.

export type ContractCase<Port> = readonly [name: string, run: (port: Port) => Promise<void>];

export interface Opened<Port> {
  port: Port;
  close(): Promise<void>;
}
