import { expect } from "vitest";
import { PROBLEM_CONTENT_TYPE, problemCodes, type Problem } from "../../core/problem.ts";

/** Asserts an RFC 9457 answer with this status (and code) and one of the contract's codes; returns its body. */
export async function expectProblem(response: Response, status: number, code?: string): Promise<Problem> {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toBe(PROBLEM_CONTENT_TYPE);
  const body = (await response.json()) as Problem;
  expect(body).toMatchObject({ status, title: expect.any(String), type: expect.any(String) });
  expect(problemCodes).toContain(body.code);
  if (code !== undefined) expect(body.code).toBe(code);
  return body;
}
