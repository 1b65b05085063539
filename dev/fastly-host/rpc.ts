import { type MessagePort, receiveMessageOnPort } from "node:worker_threads";
import type { ErlCall } from "./edge-rate-limiter.ts";
import type { DownstreamRequest } from "./guest/instance.ts";
import type { KvEntry, KvInsert, KvListQuery } from "./kv-stores.ts";

// The guest runs in a worker thread and its host calls are synchronous, while the network and the
// shared KV stores live on the main thread's event loop. A host call that needs them posts a
// request to the main thread and blocks with `Atomics.wait` until the reply is posted back; the
// reply is then taken off the port synchronously with `receiveMessageOnPort`. An instance that
// serves several requests (reusable sandboxes) waits for its next one the same way.

export interface OutgoingRequest {
  method: string;
  url: string;
  headers: [string, string][];
  body: Uint8Array;
}

interface IncomingResponse {
  status: number;
  headers: [string, string][];
  body: Uint8Array;
}

export type HostRequest =
  | { op: "kv.lookup"; store: string; key: string }
  | { op: "kv.insert"; store: string; key: string; put: KvInsert }
  | { op: "kv.delete"; store: string; key: string }
  | { op: "kv.list"; store: string; query: KvListQuery }
  | { op: "backend.send"; backend: string; request: OutgoingRequest }
  | { op: "erl"; call: ErlCall };

/** The reply to each kind of host request. */
export interface HostReplies {
  "kv.lookup": { entry: KvEntry | null };
  "kv.insert": { code: number };
  "kv.delete": { code: number };
  "kv.list": { listing: string } | { code: number };
  "backend.send": { response: IncomingResponse } | { sendError: { tag: number; message: string } };
  erl: { value: number };
}

export type HostReply = HostReplies[keyof HostReplies];
type ReplyTo<R extends HostRequest> = HostReplies[R["op"]];

/** What the guest side tells the main thread without waiting for an answer. */
export type GuestEvent =
  | { event: "response"; status: number; headers: [string, string][]; body?: Uint8Array }
  | { event: "chunk"; data: Uint8Array }
  | { event: "end"; complete: boolean }
  | { event: "log"; stream: string; text: string }
  | { event: "done"; exitCode: number | undefined; error: string | undefined }
  /** The worker's next instance is made: it can take a request. */
  | { event: "ready" }
  /** The current request is done and its instance waits in `next_request_wait` for another. */
  | { event: "waiting" }
  /** The instance stops waiting: the main thread answers with an offer, a request or null. */
  | { event: "withdraw" };

type Envelope = { id: number; request: HostRequest } | GuestEvent;
type ReplyEnvelope = { id: number; reply?: HostReply; error?: string };
/** The main thread's answer to a waiting instance: its next request, or none (it should exit). */
type OfferEnvelope = { offer: DownstreamRequest | null };

/** The guest side of the link. */
export class HostLink {
  private readonly replies = new Map<number, ReplyEnvelope>();
  private offer: OfferEnvelope | undefined;
  private nextId = 1;

  constructor(
    private readonly port: MessagePort,
    private readonly signal: Int32Array,
  ) {}

  /** Starts a host request without waiting; `take`/`waitAny` collect the reply. */
  start(request: HostRequest): number {
    const id = this.nextId++;
    this.port.postMessage({ id, request } satisfies Envelope);
    return id;
  }

  call<R extends HostRequest>(request: R): ReplyTo<R> {
    const id = this.start(request);
    this.waitAny([id], undefined);
    return this.take(id) as ReplyTo<R>;
  }

  emit(event: GuestEvent): void {
    this.port.postMessage(event satisfies Envelope);
  }

  isDone(id: number): boolean {
    this.drain();
    return this.replies.has(id);
  }

  /** The reply, once there is one; a failed request throws here. */
  take(id: number): HostReply | undefined {
    this.drain();
    const envelope = this.replies.get(id);
    if (!envelope) return undefined;
    this.replies.delete(id);
    if (envelope.error !== undefined) throw new Error(envelope.error);
    return envelope.reply;
  }

  /** Index of the first request in `ids` with a reply, or undefined when `timeoutMs` passes first. */
  waitAny(ids: readonly number[], timeoutMs: number | undefined): number | undefined {
    return this.waitFor(() => {
      const ready = ids.findIndex((id) => this.replies.has(id));
      return ready >= 0 ? ready : undefined;
    }, timeoutMs);
  }

  /**
   * Says the current request is done and waits for the main thread to hand this instance another:
   * null when none came within `timeoutMs`. A timed-out wait is withdrawn and still answered, so
   * a request handed over just then is not lost.
   */
  nextRequest(timeoutMs: number): DownstreamRequest | null {
    this.emit({ event: "waiting" });
    const takeOffer = () => {
      const offer = this.offer;
      this.offer = undefined;
      return offer;
    };
    const offered = this.waitFor(takeOffer, timeoutMs);
    if (offered) return offered.offer;
    this.emit({ event: "withdraw" });
    return this.waitFor(takeOffer, undefined)!.offer;
  }

  private waitFor<T>(ready: () => T | undefined, timeoutMs: number | undefined): T | undefined {
    const deadline = timeoutMs === undefined ? Infinity : Date.now() + timeoutMs;
    for (;;) {
      const seen = Atomics.load(this.signal, 0);
      this.drain();
      const found = ready();
      if (found !== undefined) return found;
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      Atomics.wait(this.signal, 0, seen, left === Infinity ? undefined : left);
    }
  }

  private drain(): void {
    for (let m = receiveMessageOnPort(this.port); m; m = receiveMessageOnPort(this.port)) {
      const envelope = m.message as ReplyEnvelope | OfferEnvelope;
      if ("offer" in envelope) this.offer = envelope;
      else this.replies.set(envelope.id, envelope);
    }
  }
}

/**
 * The main-thread side: answers host requests and passes guest events on. `offer` answers an
 * instance waiting for its next request (after a "waiting" or "withdraw" event).
 */
export function serveHostLink(
  port: MessagePort,
  signal: Int32Array,
  handlers: { request(request: HostRequest): Promise<HostReply>; event(event: GuestEvent): void },
): { offer(request: DownstreamRequest | null): void } {
  port.on("message", (message: Envelope) => {
    if ("event" in message) return handlers.event(message);
    const { id, request } = message;
    handlers.request(request).then(
      (reply) => answer({ id, reply }),
      (error: unknown) => answer({ id, error: error instanceof Error ? error.message : String(error) }),
    );
  });
  const answer = (envelope: ReplyEnvelope | OfferEnvelope) => {
    port.postMessage(envelope);
    Atomics.add(signal, 0, 1);
    Atomics.notify(signal, 0);
  };
  return { offer: (request) => answer({ offer: request }) };
}
