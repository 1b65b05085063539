import { fileURLToPath } from "node:url";
import { MessageChannel, Worker } from "node:worker_threads";
import { build } from "esbuild";
import type { DownstreamRequest } from "./guest/instance.ts";
import type { LocalServerConfig } from "./manifest.ts";
import type { ImagedModule } from "./memory-image.ts";
import { type GuestEvent, type HostReply, type HostRequest, serveHostLink } from "./rpc.ts";

// Worker threads that run guest instances. Each runs one request at a time (its thread blocks in
// the guest's synchronous host calls), so several workers serve concurrent requests while the main
// thread stays free for the network, the KV stores and the client connections.

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
  private readonly idle: Slot[] = [];
  private readonly queue: Job[] = [];
  private readonly slots = new Set<Slot>();
  private closed = false;

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
    while (this.idle.length && this.queue.length) {
      const slot = this.idle.pop()!;
      slot.job = this.queue.shift()!;
      slot.worker.postMessage(slot.job.request);
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
    const slot: Slot = { worker, closeLink: () => port1.close() };
    this.slots.add(slot);
    serveHostLink(port1, new Int32Array(signal), {
      request: this.options.answer,
      event: (event) => this.onEvent(slot, event),
    });
    worker.on("error", (error) => this.onCrash(slot, error));
    return slot;
  }

  private onEvent(slot: Slot, event: GuestEvent): void {
    const job = slot.job;
    if (event.event === "log") {
      this.options.log(event.stream, event.text);
      return;
    }
    if (event.event === "ready") {
      this.idle.push(slot);
      this.dispatch();
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
      slot.job = undefined;
      job.finished();
    }
  }

  /** A worker that died takes its request down with a 502; a new worker takes its place. */
  private onCrash(slot: Slot, error: Error): void {
    this.options.log("stderr", `[fastly-host] a guest worker crashed: ${error.stack ?? error.message}\n`);
    const job = slot.job;
    slot.job = undefined;
    const idle = this.idle.indexOf(slot);
    if (idle >= 0) this.idle.splice(idle, 1);
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
