import { describe, expect, it } from "vitest";
import { settleKeyedCreate } from "./settle.ts";

const stored = { id: "a-1", request_fingerprint: "f" };
const neverRead = () => Promise.reject(new Error("read again although the statement answered"));

describe("settleKeyedCreate", () => {
  it("answers a row the statement created as created, reading nothing", async () => {
    const row = { id: "a-2", created: true };
    expect(await settleKeyedCreate(row, "f", neverRead)).toEqual({ outcome: "created", row });
  });

  it("replays the stored row the statement answered when the body is the same", async () => {
    expect(await settleKeyedCreate(stored, "f", neverRead)).toEqual({ outcome: "replayed", row: stored });
  });

  it("refuses a stored row of another body as a reuse of the key", async () => {
    expect(await settleKeyedCreate(stored, "other", neverRead)).toEqual({ outcome: "key_reused" });
  });

  it("reads the key again when the statement saw neither (a first use committed after its snapshot)", async () => {
    let reads = 0;
    const readStored = async () => (reads++, stored);
    expect(await settleKeyedCreate(undefined, "f", readStored)).toEqual({ outcome: "replayed", row: stored });
    expect(reads).toBe(1);
  });

  it("fails loudly when no request holds the key even then", async () => {
    await expect(settleKeyedCreate(undefined, "f", async () => undefined)).rejects.toThrow(/no request holds/);
  });
});
