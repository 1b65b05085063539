// The bare KV get in Deno, on Deno KV, announcing its address as edge/deno/index.ts does.
import { createDenoKv, type DenoKv } from "../../../edge/kv/deno-kv.ts";
import { kvBaselineHandler } from "./handler.ts";

interface DenoGlobal {
  args: string[];
  openKv(path?: string): Promise<DenoKv>;
  serve(
    options: { port: number; hostname: string; onListen(address: { hostname: string; port: number }): void },
    handler: (request: Request) => Promise<Response>,
  ): unknown;
}
const deno = (globalThis as unknown as { Deno: DenoGlobal }).Deno;

// In memory, as the bench runs the service; or in the file its argument names, as a profile of a
// service whose KV is a planted file does (the same store on both sides).
const kv = createDenoKv(await deno.openKv(deno.args[0] ?? ":memory:"));
deno.serve(
  {
    port: 0,
    hostname: "127.0.0.1",
    onListen: ({ hostname, port }) =>
      console.log(JSON.stringify({ event: "listening", url: `http://${hostname}:${port}` })),
  },
  kvBaselineHandler(kv),
);
