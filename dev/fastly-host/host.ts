import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { sendBackendRequest } from "./backend-fetch.ts";
import { EdgeRateLimiters } from "./edge-rate-limiter.ts";
import { type GuestEvents, GuestPool } from "./guest-pool.ts";
import { KvStores } from "./kv-stores.ts";
import type { LocalServerConfig } from "./manifest.ts";
import { imageModule } from "./memory-image.ts";
import type { HostReply, HostRequest } from "./rpc.ts";

// A minimal Fastly Compute host for Node: serves HTTP on loopback and runs each request in a
// fresh instance of the compiled service (bin/main.wasm), or in one that asked for it after its
// last (reusable sandboxes), with the Fastly host calls the service uses. Instances are made ahead of their requests from the service's initialised memory image,
// as Fastly makes them from a snapshot: the host stays off the request's critical path. It stands in for Viceroy where Viceroy cannot be installed; production runs on Fastly.

interface FastlyHostOptions {
  wasmPath: string;
  config: LocalServerConfig;
  port?: number;
  hostname?: string;
  /** Requests served at once, each in its own instance. */
  concurrency?: number;
  /** Where the guest's stdout/stderr and log endpoints go. */
  log?: (stream: string, text: string) => void;
}

export interface FastlyHost {
  url: string;
  kv: KvStores;
  /** Requests served by a fresh instance, and by one that served another before (reusable sandboxes). */
  served: { readonly fresh: number; readonly reused: number };
  close(): Promise<void>;
}

const defaultLog = (stream: string, text: string) => {
  if (stream === "stdout") process.stdout.write(text);
  else if (stream === "stderr") process.stderr.write(text);
  else process.stdout.write(`[${stream}] ${text}\n`);
};

export async function startFastlyHost(options: FastlyHostOptions): Promise<FastlyHost> {
  const { config, log = defaultLog } = options;
  const wasm = new Uint8Array(await readFile(options.wasmPath));
  // Compiled once: as imaged, or as it is when it cannot be.
  const service = imageModule(wasm) ?? (await WebAssembly.compile(wasm));
  const kv = seededKv(config);
  const erl = new EdgeRateLimiters();
  const pool = await GuestPool.start({
    service,
    config,
    size: options.concurrency ?? 8,
    answer: (request) => answerHostRequest(kv, erl, request),
    log,
  });
  const server = createServer((req, res) => {
    serve(pool, req, res).catch((error: unknown) => {
      log("stderr", `[fastly-host] ${error instanceof Error ? error.message : String(error)}\n`);
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
  });
  const hostname = options.hostname ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, hostname, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${hostname}:${port}`,
    kv,
    served: pool.served,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool.close();
    },
  };
}

async function serve(pool: GuestPool, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readBody(req);
  const headers: [string, string][] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.push([req.rawHeaders[i]!, req.rawHeaders[i + 1]!]);
  const host = req.headers.host ?? "localhost";
  const request = {
    method: req.method ?? "GET",
    url: `http://${host}${req.url ?? "/"}`,
    headers,
    body,
    clientAddress: req.socket.remoteAddress ?? "",
  };
  await pool.run(request, responder(res));
}

/** The request's body; one with neither Content-Length nor Transfer-Encoding has none (RFC 9112 §6.3). */
async function readBody(req: IncomingMessage): Promise<Buffer> {
  if (req.headers["content-length"] === undefined && req.headers["transfer-encoding"] === undefined) {
    return Buffer.alloc(0);
  }
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Writes what the guest sends downstream to the client, streaming or whole. */
function responder(res: ServerResponse): GuestEvents {
  return {
    response(status, headers, body) {
      res.statusCode = status;
      for (const [name, values] of groupHeaders(headers)) res.setHeader(name, values);
      if (body) res.end(body);
      else res.flushHeaders();
    },
    chunk: (data) => void res.write(data),
    end: (complete) => (complete ? res.end() : res.destroy()),
  };
}

// Framing is the host's job ("automatic" framing mode): the guest's own framing headers go.
const FRAMING = new Set(["content-length", "transfer-encoding", "connection"]);

function groupHeaders(headers: [string, string][]): Map<string, string[]> {
  const grouped = new Map<string, string[]>();
  for (const [name, value] of headers) {
    if (!FRAMING.has(name)) grouped.set(name, [...(grouped.get(name) ?? []), value]);
  }
  return grouped;
}

function seededKv(config: LocalServerConfig): KvStores {
  const kv = new KvStores(Object.keys(config.kvStores));
  for (const [store, seeds] of Object.entries(config.kvStores)) {
    for (const { key, data, metadata } of seeds)
      kv.insert(store, key, { body: Buffer.from(data), mode: "overwrite", metadata });
  }
  return kv;
}

async function answerHostRequest(kv: KvStores, erl: EdgeRateLimiters, request: HostRequest): Promise<HostReply> {
  switch (request.op) {
    case "kv.lookup":
      return { entry: kv.lookup(request.store, request.key) };
    case "kv.insert":
      return { code: kv.insert(request.store, request.key, request.put) };
    case "kv.delete":
      return { code: kv.delete(request.store, request.key) };
    case "kv.list": {
      const listing = kv.list(request.store, request.query);
      return typeof listing === "string" ? { listing } : { code: listing };
    }
    case "backend.send":
      return sendBackendRequest(request.request);
    case "erl":
      return { value: erl.answer(request.call) };
  }
}
