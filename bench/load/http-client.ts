// The load generator's transport: node:http(s) on kept-alive connections, with no WHATWG Request,
// Headers or Response in between. Those objects (undici's) cost the client thread more than a KV
// hit costs the server: the bench beside autocannon reached 0.45× its throughput with fetch
// (bench/load/cross-check.ts, docs/benchmarks.md).
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { urlToHttpOptions } from "node:url";
import type { Answer, Transport } from "./request.ts";

const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

const failed = (error: unknown) => new TypeError("fetch failed", { cause: error });

/** node:http joins a repeated header's values with ", ", as Headers.get does (set-cookie aside). */
const headerOf = (headers: IncomingHttpHeaders) => (name: string) => {
  const value = headers[name];
  return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
};

/** Requests to `baseUrl`'s origin; each answer's body is read to its end and dropped. */
export function httpTransport(baseUrl: string): Transport {
  // Its protocol, host name (an IPv6 address without brackets) and port.
  const { protocol, hostname, port } = urlToHttpOptions(new URL(baseUrl));
  const secure = protocol === "https:";
  const send = secure ? httpsRequest : httpRequest;
  const agent = agents[secure ? "https" : "http"];
  return ({ method, path, headers, body }) =>
    new Promise<Answer>((resolve, reject) => {
      const sent = send({ protocol, hostname, port, path, method, headers, agent }, (message) => {
        message.on("data", () => {});
        message.on("end", () => resolve({ status: message.statusCode ?? 502, header: headerOf(message.headers) }));
        message.on("error", (error) => reject(failed(error)));
      });
      sent.on("error", (error) => reject(failed(error)));
      sent.end(body);
    });
}
