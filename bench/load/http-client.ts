// The load generator's HTTP client: node:http(s) on kept-alive connections, behind fetch's
// signature. fetch (undici, over WHATWG streams) cost the client thread so much that the bench,
// beside autocannon on a server that answers at once, reached 0.45× its throughput; with this
// client 0.82× (bench/load/cross-check.ts, docs/benchmarks.md).
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";

const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

/** Answers that carry no body, which Response refuses one for. */
const BODILESS = new Set([101, 204, 205, 304]);

function answer(message: IncomingMessage, body: Buffer): Response {
  const headers = new Headers();
  for (let i = 0; i < message.rawHeaders.length; i += 2)
    headers.append(message.rawHeaders[i]!, message.rawHeaders[i + 1]!);
  const status = message.statusCode ?? 502;
  return new Response(BODILESS.has(status) ? null : new Uint8Array(body), { status, headers });
}

const failed = (error: unknown) => new TypeError("fetch failed", { cause: error });

/** fetch's contract as the bench uses it: the whole body read, a network failure's code as its cause. */
export async function keepAliveFetch(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
  const secure = url.protocol === "https:";
  const options = {
    method: request.method,
    headers: Object.fromEntries(request.headers),
    agent: agents[secure ? "https" : "http"],
  };
  return new Promise((resolve, reject) => {
    const sent = (secure ? httpsRequest : httpRequest)(url, options, (message) => {
      const chunks: Buffer[] = [];
      message.on("data", (chunk: Buffer) => chunks.push(chunk));
      message.on("end", () => resolve(answer(message, Buffer.concat(chunks))));
      message.on("error", (error) => reject(failed(error)));
    });
    sent.on("error", (error) => reject(failed(error)));
    sent.end(body);
  });
}
