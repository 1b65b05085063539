import { fileURLToPath } from "node:url";
import { MessageChannel, Worker } from "node:worker_threads";
import { build } from "esbuild";
import type { DownstreamRequest } from "./guest/instance.ts";
import type { LocalServerConfig } from "./manifest.ts";
import type { ImagedModule } from "./memory-image.ts";
import { type GuestEvent, type HostReply, type HostRequest, serveHostLink } from "./rpc.ts";

// Worker threads that run guest instances. Each runs one request at a time (its thread blocks in
// the guest's synchronous host calls), so several workers serve concurrent requests while the main
// thread stays free for the network, the KV stores and the client connections. An instance of a
// service that opted into reusable sandboxes asks for its next request when it is done with one:
// its worker then waits with the instance alive, and such a worker gets the next request first,
// as Viceroy hands requests to waiting sandboxes before it starts new ones.

export interface GuestEvents {
  response(status: number, headers: [string, string][], body?: Uint8Array): void;
  chunk(data: Uint8Array): void;
  end(complete: boolean): void;
}

interface GuestPoolOptions {
  /** The compiled service, imaged (memory-image.ts) when it could be; each worker gets its own image. */
  service: WebAssembly.Module | ImagedModule;
  config: LocalServerConfig;
  size: number;
  answer(request: HostRequest): Promise<HostReply>;
  log(stream: string, text: string): void;
}

interface Job {
  request: DownstreamRequest;
  events: GuestEvents;
  responded: boolean;
  finished(): void;
}

interface Slot {
  worker: Worker;
  job?: Job;
  /** Hands a request (or, null, none) to the instance waiting in `next_request_wait`. */
  offer(request: DownstreamRequest | null): void;
  closeLink(): void;
}

let workerSource: Promise<string> | undefined;

/** The worker's code: TypeScript bundled once per process (workers cannot load .ts themselves). */
function bundledWorker(): Promise<string> {
  workerSource ??= build({
    entryPoints: [fileURLToPath(new URL("./guest-worker.ts", import.meta.url))],
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    write: false,
    logLevel: "silent",
  }).then((result) => result.outputFiles[0]!.text);
  return workerSource;
}

export class GuestPool {
  /** Workers with a fresh instance. */
  private readonly idle: Slot[] = [];
  /** Workers whose instance, having served a request, waits for another. */
  private readonly waiting: Slot[] = [];
  private readonly queue: Job[] = [];
  private readonly slots = new Set<Slot>();
  private closed = false;
  /** Requests handed to a fresh instance, and to one that had served another before. */
  readonly served = { fresh: 0, reused: 0 };

  private constructor(
    private readonly options: GuestPoolOptions,
    private readonly source: string,
  ) {}

  static async start(options: GuestPoolOptions): Promise<GuestPool> {
    const pool = new GuestPool(options, await bundledWorker());
    // Each worker joins `idle` once its first instance is made ("ready").
    for (let i = 0; i < options.size; i++) pool.spawn();
    return pool;
  }

  /** Runs the request in a fresh instance; resolves once that instance has finished. */
  run(request: DownstreamRequest, events: GuestEvents): Promise<void> {
    if (this.closed) return Promise.reject(new Error("the Fastly host is closed"));
    return new Promise((finished) => {
      this.queue.push({ request, events, responded: false, finished });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.slots].map((slot) => this.retire(slot)));
  }

  private dispatch(): void {
    while (this.queue.length) {
      // The instance that waited least goes first: the others may time out and be made fresh.
      const reused = this.waiting.pop();
      const slot = reused ?? this.idle.pop();
      if (!slot) return;
      slot.job = this.queue.shift()!;
      this.served[reused ? "reused" : "fresh"]++;
      if (reused) slot.offer(slot.job.request);
      else slot.worker.postMessage(slot.job.request);
    }
  }

  private spawn(): Slot {
    const { port1, port2 } = new MessageChannel();
    const signal = new SharedArrayBuffer(4);
    const worker = new Worker(this.source, {
      eval: true,
      workerData: {
        service: this.options.service,
        config: this.options.config,
        port: port2,
        signal,
      },
      transferList: [port2],
    });
    const link = serveHostLink(port1, new Int32Array(signal), {
      request: this.options.answer,
      event: (event) => this.onEvent(slot, event),
    });
    const slot: Slot = { worker, offer: link.offer, closeLink: () => port1.close() };
    this.slots.add(slot);
    worker.on("error", (error) => this.onCrash(slot, error));
    return slot;
  }

  private onEvent(slot: Slot, event: GuestEvent): void {
    const job = slot.job;
    if (event.event === "log") {
      this.options.log(event.stream, event.text);
      return;
    }
    if (event.event === "ready" || event.event === "waiting") {
      if (event.event === "waiting") this.finish(slot);
      (event.event === "ready" ? this.idle : this.waiting).push(slot);
      this.dispatch();
      return;
    }
    if (event.event === "withdraw") {
      // Unless a request is already on its way to it, the instance gets none and exits.
      if (this.forget(slot, this.waiting)) slot.offer(null);
      return;
    }
    if (!job) return;
    if (event.event === "response") {
      job.responded = true;
      job.events.response(event.status, event.headers, event.body);
    } else if (event.event === "chunk") job.events.chunk(event.data);
    else if (event.event === "end") job.events.end(event.complete);
    else if (event.event === "done") {
      if (event.error) this.options.log("stderr", `[fastly-host] the guest failed: ${event.error}\n`);
      this.finish(slot);
    }
  }

  private finish(slot: Slot): void {
    const job = slot.job;
    slot.job = undefined;
    job?.finished();
  }

  private forget(slot: Slot, list: Slot[]): boolean {
    const index = list.indexOf(slot);
    if (index >= 0) list.splice(index, 1);
    return index >= 0;
  }

  /** A worker that died takes its request down with a 502; a new worker takes its place. */
  private onCrash(slot: Slot, error: Error): void {
    this.options.log("stderr", `[fastly-host] a guest worker crashed: ${error.stack ?? error.message}\n`);
    const job = slot.job;
    slot.job = undefined;
    this.forget(slot, this.idle);
    this.forget(slot, this.waiting);
    void this.retire(slot);
    if (job) {
      if (!job.responded) job.events.response(502, [["content-type", "text/plain"]], Buffer.from(`${error.message}\n`));
      else job.events.end(false);
      job.finished();
    }
    if (this.closed) return;
    this.spawn();
  }

  private async retire(slot: Slot): Promise<void> {
    this.slots.delete(slot);
    slot.closeLink();
    await slot.worker.terminate();
  }
}
