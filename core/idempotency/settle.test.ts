import { describe, expect, it } from "vitest";
import type { Row } from "../ports/sql.ts";
import { createOnce } from "./settle.ts";

const stored = { id: "a-1", request_fingerprint: "f" };
const neverRead = () => Promise.reject(new Error("read again although the statement answered"));
/** An attempt that answers `rows` in turn, counting its runs. */
const answering = (...rows: (Row | undefined)[]) => {
  const attempt = async () => rows[attempt.runs++];
  attempt.runs = 0;
  return attempt;
};

describe("createOnce", () => {
  it("answers a row the statement created as created, reading nothing", async () => {
    const row = { id: "a-2", created: true };
    expect(await createOnce(answering(row), "f", neverRead)).toEqual({ outcome: "created", row });
  });

  it("replays the stored row the statement answered when the body is the same", async () => {
    expect(await createOnce(answering(stored), "f", neverRead)).toEqual({ outcome: "replayed", row: stored });
  });

  it("refuses a stored row of another body as a reuse of the key", async () => {
    expect(await createOnce(answering(stored), "other", neverRead)).toEqual({ outcome: "key_reused" });
  });

  it("reads the key again when the statement saw neither (a first use committed after its snapshot)", async () => {
    let reads = 0;
    const readStored = async () => (reads++, stored);
    expect(await createOnce(answering(undefined), "f", readStored)).toEqual({ outcome: "replayed", row: stored });
    expect(reads).toBe(1);
  });

  it("runs the statement again when the key expired before it could be read", async () => {
    const row = { id: "a-3", created: true };
    const attempt = answering(undefined, row);
    expect(await createOnce(attempt, "f", async () => undefined)).toEqual({ outcome: "created", row });
    expect(attempt.runs).toBe(2);
  });

  it("fails loudly when no request holds the key, attempt after attempt", async () => {
    const attempt = answering();
    await expect(createOnce(attempt, "f", async () => undefined)).rejects.toThrow(/no request held/);
    expect(attempt.runs).toBe(3);
  });
});
