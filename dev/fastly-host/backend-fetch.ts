import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { SendErrorTag } from "./abi.ts";
import type { HostReply, OutgoingRequest } from "./rpc.ts";

// The real HTTP request behind a guest's backend request, made on the main thread's event loop.
// Headers go out as the guest set them (Host included) and the response body is not decoded:
// the host is a proxy, not a browser.

/** Fastly's default first-byte timeout for a backend. */
const FIRST_BYTE_TIMEOUT_MS = 15_000;

export function sendBackendRequest(
  outgoing: OutgoingRequest,
  firstByteTimeoutMs = FIRST_BYTE_TIMEOUT_MS,
): Promise<HostReply> {
  const url = new URL(outgoing.url);
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const sendError = (tag: number, message: string) => resolve({ sendError: { tag, message } });
    const req = send(
      url,
      { method: outgoing.method, headers: rawHeaders(outgoing.headers), timeout: firstByteTimeoutMs },
      (res) => {
        req.setTimeout(0);
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", (error) => sendError(SendErrorTag.CONNECTION_TERMINATED, error.message));
        res.on("end", () => {
          const headers: [string, string][] = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2) headers.push([res.rawHeaders[i]!, res.rawHeaders[i + 1]!]);
          resolve({ response: { status: res.statusCode ?? 502, headers, body: Buffer.concat(chunks) } });
        });
      },
    );
    req.on("timeout", () => {
      req.destroy();
      sendError(SendErrorTag.HTTP_RESPONSE_TIMEOUT, `no response within ${firstByteTimeoutMs} ms`);
    });
    req.on("error", (error: NodeJS.ErrnoException) => sendError(errorTag(error.code), error.message));
    req.end(outgoing.body);
  });
}

function errorTag(code: string | undefined): number {
  switch (code) {
    case "ECONNREFUSED":
      return SendErrorTag.CONNECTION_REFUSED;
    case "ECONNRESET":
    case "EPIPE":
      return SendErrorTag.CONNECTION_TERMINATED;
    case "ETIMEDOUT":
      return SendErrorTag.CONNECTION_TIMEOUT;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return SendErrorTag.DESTINATION_NOT_FOUND;
    default:
      return SendErrorTag.INTERNAL_ERROR;
  }
}

/** Node's flat [name, value, name, value] form keeps repeated headers and the guest's order. */
function rawHeaders(headers: [string, string][]): string[] {
  return headers.flat();
}
