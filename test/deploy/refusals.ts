// What a self-hosted entry (Node, Deno) must refuse at start with one line naming the setting:
// the listen settings shared by both, and the check of that one line; and a setting every runtime
// must refuse that only an asynchronous check finds.
import { createServer, type Server } from "node:net";
import { expect } from "vitest";
import type { Exit } from "./processes.ts";

/** A port on 127.0.0.1 that something else already listens on, for as long as the suite runs. */
export async function holdPort(): Promise<{ port: number; release(): Promise<void> }> {
  const holder: Server = createServer();
  await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
  const { port } = holder.address() as { port: number };
  return { port, release: () => new Promise<void>((resolve) => holder.close(() => resolve())) };
}

/** [setting, environment]: HOST and PORT values the server cannot listen on. */
export const BAD_LISTEN_SETTINGS: [string, (portInUse: number) => Record<string, string>][] = [
  ["HOST", () => ({ HOST: "999.1.1.1", PORT: "0" })], // resolves to nothing
  ["HOST", () => ({ HOST: "192.0.2.1", PORT: "0" })], // an address (TEST-NET-1) of no machine here
  ["PORT", (portInUse) => ({ HOST: "127.0.0.1", PORT: String(portInUse) })],
  ["PORT", () => ({ HOST: "127.0.0.1", PORT: "eighty" })],
];

/** AUTH_JWKS that parses, whose one RSA key has no modulus: only importing the key finds it unusable. */
export const UNIMPORTABLE_JWKS = {
  AUTH_SECRET: "",
  AUTH_SECRET_SCOPE: "",
  AUTH_JWKS: JSON.stringify({ keys: [{ kty: "RSA", kid: "rsa-1", e: "AQAB" }] }),
  AUTH_ISSUER: "https://idp.example/",
  AUTH_AUDIENCE: "edge-api",
};

/** Exit 1 and one line on stderr, `Misconfigured: <setting> …`, holding none of `secrets` (empty ones are no secret). */
export function expectOneMisconfiguredLine(exit: Exit, setting: string, secrets: string[]): void {
  expect(exit.code, exit.stderr).toBe(1);
  expect(exit.stderr.trim().split("\n")).toEqual([expect.stringMatching(new RegExp(`^Misconfigured: ${setting} `))]);
  for (const value of secrets) if (value) expect(exit.stderr).not.toContain(value);
}
