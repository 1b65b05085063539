// Neon's SQL requests from Node without Node's `fetch`: per round trip its `fetch` costs ~0.3 ms
// of CPU (WHATWG streams, Request and Response objects), close to a one-row INSERT's whole round
// trip to a nearby database. https: (Neon) goes over node:https with keep-alive; plain http: (the
// local endpoint) over the leaner ./http1-client.ts.
import type { IncomingMessage } from "node:http";
import { Agent, request } from "node:https";
import { type NeonAnswer, type NeonPost, ReadAnswer, withDeadline } from "../neon/neon-http.ts";
import { postOverHttp1 } from "./http1-client.ts";

// Idle sockets close after 4 s (as fetch's do), before a server's keep-alive timeout can race a
// request onto a socket it is closing.
const agent = new Agent({ keepAlive: true, timeout: 4_000 });

/**
 * POSTs the body and resolves once the whole answer is in. Rejects with Node's error (its `code`,
 * e.g. ECONNREFUSED, tells a request that never left) or, past `timeoutMs`, a TimeoutError.
 */
export const postOverNodeHttp: NeonPost = (url, { headers, body, timeoutMs }) => {
  const target = parsedUrl(url);
  if (target.protocol === "http:") return postOverHttp1(target, headers, body, timeoutMs);
  if (target.protocol !== "https:") return Promise.reject(new TypeError(`unsupported protocol in ${target.origin}`));
  return withDeadline(timeoutMs, (signal) => postOverHttps(target, headers, body, signal));
};

function postOverHttps(
  target: URL,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
): Promise<NeonAnswer> {
  const length = String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const sent = request(
      target,
      { method: "POST", headers: { ...headers, "Content-Length": length }, agent, signal },
      (response: IncomingMessage) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          text += chunk;
        });
        response.on("end", () => resolve(new ReadAnswer(response.statusCode ?? 0, text)));
        response.on("error", reject);
      },
    );
    sent.on("error", reject);
    sent.end(body);
  });
}

// A service posts to one endpoint all its life: its URL is parsed once.
let lastUrl: { text: string; parsed: URL } | undefined;
function parsedUrl(text: string): URL {
  if (lastUrl?.text !== text) lastUrl = { text, parsed: new URL(text) };
  return lastUrl.parsed;
}
