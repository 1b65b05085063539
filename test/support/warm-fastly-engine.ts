// vitest globalSetup of the projects that build the Fastly wasm: the size-optimized engine takes
// about a minute to make on a fresh machine (once; then it is kept), longer than a test hook may.
import { ROOT } from "../../dev/build/fastly.ts";
import { optimizedEngine } from "../../dev/build/wasm-opt.ts";

export default async function warmFastlyEngine(): Promise<void> {
  await optimizedEngine(ROOT);
}
