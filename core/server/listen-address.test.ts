import { describe, expect, it } from "vitest";
import { SettingsError } from "../settings/error.ts";
import { listenAddress, listenFailure } from "./listen-address.ts";

const from = (env: Record<string, string>) => (name: string) => env[name];

describe("listenAddress", () => {
  it("listens on every interface, port 8080, unless HOST and PORT say otherwise", () => {
    expect(listenAddress(from({}))).toEqual({ hostname: "0.0.0.0", port: 8080 });
    expect(listenAddress(from({ HOST: " ", PORT: "" }))).toEqual({ hostname: "0.0.0.0", port: 8080 });
    expect(listenAddress(from({ HOST: "127.0.0.1", PORT: "0" }))).toEqual({ hostname: "127.0.0.1", port: 0 });
  });

  it.each(["eighty", "abc", "-1", "65536", "80.5", "8e3", "9007199254740993"])(
    "refuses PORT=%s, naming PORT",
    (port) => {
      expect(() => listenAddress(from({ PORT: port }))).toThrow(
        new SettingsError("PORT", "must be a whole number from 0 to 65535"),
      );
    },
  );
});

describe("listenFailure", () => {
  const fault = (fields: { code?: string; message?: string }) => Object.assign(new Error(fields.message), fields);

  it.each([
    ["PORT", { code: "EADDRINUSE" }],
    ["PORT", { code: "EACCES" }],
    ["HOST", { code: "EADDRNOTAVAIL" }],
    ["HOST", { code: "ENOTFOUND", message: "getaddrinfo ENOTFOUND 999.1.1.1" }],
    ["HOST", { message: "failed to lookup address information: Name or service not known" }],
  ])("blames %s for %o, without the value", (setting, fields) => {
    const failure = listenFailure(fault(fields));
    expect(failure).toBeInstanceOf(SettingsError);
    expect(failure?.setting).toBe(setting);
    expect(failure?.message).not.toContain("999");
  });

  it("blames no setting for any other failure", () => {
    expect(listenFailure(fault({ code: "ECONNRESET" }))).toBeUndefined();
    expect(listenFailure(new TypeError("x"))).toBeUndefined();
    expect(listenFailure(undefined)).toBeUndefined();
  });
});
