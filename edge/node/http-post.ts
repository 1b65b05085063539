// Neon's SQL requests from Node over node:http(s) with keep-alive, instead of Node's `fetch`:
// per round trip `fetch` costs ~0.3 ms of CPU here (WHATWG streams, Request/Response objects),
// close to a one-row INSERT's whole round trip to a nearby database. The request is one POST of
// a JSON text; the answer is its status and text.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";

export interface PostAnswer {
  status: number;
  text: string;
}

// Idle sockets close after 4 s (as fetch's do), before any server's keep-alive timeout can race
// a request onto a socket it is closing.
const IDLE_SOCKET_MS = 4_000;
const agents = {
  "http:": new HttpAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
  "https:": new HttpsAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
};

/**
 * POSTs `body` and resolves with the whole answer. Rejects with Node's error (its `code`, e.g.
 * ECONNREFUSED, tells a request that never left) or, once `signal` aborts, with an AbortError.
 */
export function postText(
  url: string,
  headers: Record<string, string>,
  body: string,
  signal?: AbortSignal,
): Promise<PostAnswer> {
  const target = new URL(url);
  const send = target.protocol === "https:" ? httpsRequest : httpRequest;
  const agent = agents[target.protocol as keyof typeof agents];
  if (!agent) return Promise.reject(new TypeError(`unsupported protocol in ${target.origin}`));
  return new Promise((resolve, reject) => {
    const sent = send(target, { method: "POST", headers, agent, signal }, (response: IncomingMessage) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        text += chunk;
      });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, text }));
      response.on("error", reject);
    });
    sent.on("error", reject);
    sent.end(body);
  });
}
