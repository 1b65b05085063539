// Plain-HTTP POSTs (the local Neon-compatible endpoint, a self-hosted proxy on a private network)
// over kept-alive sockets, the answer framed by http-parser-js. node:http's client costs ~0.2 ms
// of CPU per round trip (ClientRequest, the agent's bookkeeping, response streams), as much as a
// one-row INSERT on a nearby database; a request here is one string written and one parse.
import { connect, type Socket } from "node:net";
import { HTTPParser } from "http-parser-js";
import { type NeonAnswer, ReadAnswer, timeoutError } from "../neon/neon-http.ts";

// A socket idle for 4 s is not reused, well before a server's keep-alive timeout can race a
// request onto a socket it is closing (the endpoint keeps them 65 s, Node's servers 5 s). Checked
// when one is taken, not by a timer per socket: timers are a good part of a request's CPU here.
const IDLE_SOCKET_MS = 4_000;
const MAX_IDLE_PER_ORIGIN = 256;

/** Idle connections by "host:port", most recently used last. */
const idle = new Map<string, Connection[]>();

/** POSTs `body` to a plain http: URL; rejects with the socket's error (its code) or, past `timeoutMs`, a TimeoutError. */
export function postOverHttp1(
  target: URL,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<NeonAnswer> {
  const origin = target.host;
  const connection = takeIdle(origin) ?? new Connection(target.hostname, Number(target.port || 80), origin);
  const text = `${requestHead(target, headers)}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  return connection.send(text, timeoutMs);
}

function takeIdle(origin: string): Connection | undefined {
  const list = idle.get(origin);
  for (let connection = list?.pop(); connection; connection = list?.pop()) {
    if (connection.fresh()) return connection;
    connection.close();
  }
  return undefined;
}

// A client sends the same headers object with most requests: its lines are written once.
const heads = new WeakMap<Record<string, string>, string>();

function requestHead(target: URL, headers: Record<string, string>): string {
  let head = heads.get(headers);
  if (head === undefined || !head.includes(`\r\nHost: ${target.host}\r\n`)) {
    head = `POST ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\n`;
    for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
    heads.set(headers, head);
  }
  return head;
}

/** One socket, one request at a time; back to the idle list after a complete keep-alive answer. */
class Connection {
  private readonly socket: Socket;
  // One parser for the connection's life: it starts over by itself after each complete answer.
  private readonly parser = new HTTPParser(HTTPParser.RESPONSE);
  private current:
    | { resolve(answer: NeonAnswer): void; reject(error: unknown): void; timer: ReturnType<typeof setTimeout> }
    | undefined;
  private status = 0;
  private keepAlive = false;
  private chunks: Buffer[] = [];
  private parkedAt = 0;

  constructor(
    host: string,
    port: number,
    private readonly origin: string,
  ) {
    this.parser[HTTPParser.kOnHeadersComplete] = (info) => {
      this.status = info.statusCode;
      this.keepAlive = info.shouldKeepAlive;
    };
    // Views, not copies: each read of a socket gets a buffer of its own.
    this.parser[HTTPParser.kOnBody] = (chunk, offset, length) => {
      this.chunks.push(chunk.subarray(offset, offset + length));
    };
    this.parser[HTTPParser.kOnMessageComplete] = () => this.complete();
    this.socket = connect({ host, port, noDelay: true });
    this.socket.on("data", (data: Buffer) => this.onData(data));
    this.socket.on("error", (error) => this.fail(error));
    this.socket.on("close", () => this.onClose());
  }

  /** Still open (its "close" may not have come yet) and idle for less than IDLE_SOCKET_MS: safe to reuse. */
  fresh(): boolean {
    return this.socket.writable && performance.now() - this.parkedAt < IDLE_SOCKET_MS;
  }

  close(): void {
    this.socket.destroy();
  }

  send(text: string, timeoutMs: number): Promise<NeonAnswer> {
    this.socket.ref();
    this.status = 0;
    this.chunks = [];
    return new Promise<NeonAnswer>((resolve, reject) => {
      // A plain timer: an AbortSignal per request would cost more than the rest of the request.
      const timer = setTimeout(() => this.abandon(), timeoutMs);
      this.current = { resolve, reject, timer };
      this.socket.write(text);
    });
  }

  /** Past the deadline: the request is given up and its socket, in an unknown state, closed. */
  private abandon(): void {
    this.fail(timeoutError());
    this.socket.destroy();
  }

  private onData(data: Buffer): void {
    if (!this.current) return void this.socket.destroy(); // bytes nobody asked for: not reusable
    const result = this.parser.execute(data);
    if (result instanceof Error) {
      this.fail(result);
      this.socket.destroy();
    }
  }

  private complete(): void {
    const status = this.status;
    this.status = 0;
    if (status < 200) return; // 100 Continue and the like precede the answer
    const current = this.current;
    if (!current) return void this.socket.destroy(); // a second answer to one request: not reusable
    this.current = undefined;
    const text = (this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks))?.toString("utf8") ?? "";
    if (this.keepAlive) this.park();
    else this.socket.end();
    clearTimeout(current.timer);
    current.resolve(new ReadAnswer(status, text));
  }

  /** Kept for the next request to the same origin, unless enough are idle already. */
  private park(): void {
    const list = idle.get(this.origin) ?? [];
    if (list.length >= MAX_IDLE_PER_ORIGIN) return void this.socket.end();
    list.push(this);
    idle.set(this.origin, list);
    this.parkedAt = performance.now();
    this.socket.unref(); // an idle socket does not keep the process alive
  }

  private onClose(): void {
    const list = idle.get(this.origin);
    const at = list?.indexOf(this) ?? -1;
    if (list && at >= 0) list.splice(at, 1);
    if (this.current) this.parser.finish(); // an answer without a length ends with the connection
    this.fail(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }));
  }

  private fail(error: unknown): void {
    const current = this.current;
    this.current = undefined;
    if (!current) return;
    clearTimeout(current.timer);
    current.reject(error);
  }
}
