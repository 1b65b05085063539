import { describe, expect, it } from "vitest";
import { withExplicitSslMode } from "./pg-url.ts";

describe("withExplicitSslMode", () => {
  it.each(["require", "prefer", "verify-ca"])("names verify-full for sslmode=%s, as pg applies it", (mode) => {
    const url = withExplicitSslMode(`postgres://u:p%40ss@ep-x.neon.tech/db?sslmode=${mode}&channel_binding=require`);
    expect(url).toBe("postgres://u:p%40ss@ep-x.neon.tech/db?sslmode=verify-full&channel_binding=require");
    expect(decodeURIComponent(new URL(url).password)).toBe("p@ss");
  });

  it("leaves alone a URL without sslmode, with another one, with libpq semantics asked for, or unparsable", () => {
    for (const url of [
      "postgres://postgres@127.0.0.1:5432/app",
      "postgres://u@h/db?sslmode=disable",
      "postgres://u@h/db?sslmode=verify-full",
      "postgres://u@h/db?uselibpqcompat=true&sslmode=require",
      "not a url",
    ]) {
      expect(withExplicitSslMode(url)).toBe(url);
    }
  });
});
