import { afterAll, beforeAll, describe, it } from "vitest";
import type { ContractCase, Opened } from "./contract.ts";

/** Runs a contract's cases under vitest, against one implementation opened once for them all. */
export function describeContract<Port>(
  title: string,
  cases: readonly ContractCase<Port>[],
  open: () => Promise<Opened<Port>>,
  openTimeoutMs?: number,
): void {
  describe(title, () => {
    let opened: Opened<Port> | undefined;
    beforeAll(async () => {
      opened = await open();
    }, openTimeoutMs);
    afterAll(async () => {
      await opened?.close();
    });
    for (const [name, run] of cases) it(name, () => run(opened!.port));
  });
}
