// Requests that are not valid HTTP at all: answered by the contract wherever they reach the app.
import { describe, expect, it } from "vitest";
import type { RuntimeName } from "../../../dev/launchers/index.ts";
import { rawRequest } from "../raw-request.ts";

export function malformedHttpCases(runtime: RuntimeName, baseUrl: () => string) {
  describe("requests that are not valid HTTP", () => {
    // On Node the API's own server parses HTTP and answers problem+json. Elsewhere the platform's
    // front end (workerd, Deno, the Compute host) parses first and may answer in its own format;
    // whatever it lets through reaches the app and is answered by the contract.
    const ownServer = runtime === "node";
    const malformed = {
      "an unrecognized method token": { request: "BREW /healthz HTTP/1.1", status: 501, code: "not_implemented" },
      "a control character in a header": {
        request: "GET /healthz HTTP/1.1\r\nX-Bad: a\u0001b",
        status: 400,
        code: "malformed_request",
      },
      "a header section over 16 KiB": {
        request: `GET /healthz HTTP/1.1\r\nX-Big: ${"a".repeat(20_000)}`,
        status: 431,
        code: "headers_too_large",
      },
      // Deno hands it to the app as sent; the app must not fail on the URL it cannot make.
      // RFC 9112 §3.2 asks a 400 of it; Deno serves it, Viceroy closes the connection.
      "an HTTP/1.1 request without Host": {
        request: "GET /healthz HTTP/1.1",
        host: null,
        status: 400,
        code: "malformed_request",
      },
      "a Host header that makes no URL": {
        request: "GET /healthz HTTP/1.1",
        host: "exa mple",
        status: 400,
        code: "malformed_request",
      },
      // Node's adapter refuses it; the URL parser of workerd and Deno reads it as a slash, a path like any other.
      ...(ownServer
        ? {
            "a backslash in the path": {
              request: "GET /v1\\me\\links HTTP/1.1",
              status: 400,
              code: "malformed_request",
            },
          }
        : {}),
    };
    for (const [reason, { request, host = "localhost", status, code }] of Object.entries(malformed) as [
      string,
      { request: string; host?: string | null; status: number; code: string },
    ][]) {
      it(`${reason}: ${ownServer ? `${status} ${code}` : "refused by the platform, or answered by the app"}`, async () => {
        const hostLine = host === null ? "" : `\r\nHost: ${host}`;
        const answer = await rawRequest(baseUrl(), `${request}${hostLine}\r\nConnection: close\r\n\r\n`);
        const reachedApp = answer.headers["x-request-id"] !== undefined;
        if (ownServer || (reachedApp && answer.status >= 400)) {
          expect(answer.status, answer.text).toBe(status);
          expect(answer.headers["content-type"]).toBe("application/problem+json");
          expect(JSON.parse(answer.body)).toMatchObject({ status, code });
        } else if (!reachedApp) {
          // Refused in the platform's own way: an error status, or (Viceroy, for a Host that
          // makes no URL) the connection closed without an answer, never a success.
          const unanswered = runtime === "fastly" && answer.text === "";
          expect(unanswered || answer.status >= 400, answer.text).toBe(true);
        }
      });
    }
  });
}
