import { expect } from "vitest";
import { PROBLEM_CONTENT_TYPE, type Problem, problemCodes } from "../../core/http/problem.ts";

/** An answer already read: what the conformance client returns, and what a Response becomes. */
interface ReadAnswer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/** Asserts an RFC 9457 answer with this status (and code) and one of the contract's codes; returns its body. */
export function expectProblemAnswer(answer: ReadAnswer, status: number, code?: string): Problem {
  expect({ status: answer.status, code: answer.json?.code }, answer.text).toEqual({
    status,
    code: code ?? answer.json?.code,
  });
  expect(answer.headers.get("content-type")).toMatch(new RegExp(`^${PROBLEM_CONTENT_TYPE.replace("+", "\\+")}\\b`));
  expect(answer.json).toMatchObject({ type: expect.any(String), title: expect.any(String), status });
  expect(problemCodes).toContain(answer.json.code);
  if ("detail" in answer.json) expect(answer.json.detail).toEqual(expect.any(String));
  return answer.json as Problem;
}

/** The same, reading the Response first. */
export async function expectProblem(response: Response, status: number, code?: string): Promise<Problem> {
  const text = await response.text();
  return expectProblemAnswer(
    { status: response.status, headers: response.headers, text, json: parseJson(text) },
    status,
    code,
  );
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
