// Neon's SQL requests from Node over node:http(s) with keep-alive, instead of Node's `fetch`: per
// round trip its `fetch` costs ~0.3 ms of CPU (WHATWG streams, Request and Response objects),
// close to a one-row INSERT's whole round trip to a nearby database.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { NeonPost } from "../neon/neon-http.ts";

// Idle sockets close after 4 s (as fetch's do), before a server's keep-alive timeout can race a
// request onto a socket it is closing.
const IDLE_SOCKET_MS = 4_000;
const agents = {
  "http:": new HttpAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
  "https:": new HttpsAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
};

/**
 * POSTs the body and resolves once the whole answer is in. Rejects with Node's error (its `code`,
 * e.g. ECONNREFUSED, tells a request that never left) or, once `signal` aborts, an AbortError.
 */
export const postOverNodeHttp: NeonPost = (url, { headers, body, signal }) => {
  const target = new URL(url);
  const agent = agents[target.protocol as keyof typeof agents];
  if (!agent) return Promise.reject(new TypeError(`unsupported protocol in ${target.origin}`));
  const send = target.protocol === "https:" ? httpsRequest : httpRequest;
  const length = String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const sent = send(
      target,
      { method: "POST", headers: { ...headers, "Content-Length": length }, agent, signal },
      (response: IncomingMessage) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          text += chunk;
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, text: async () => text }));
        response.on("error", reject);
      },
    );
    sent.on("error", reject);
    sent.end(body);
  });
};
