import "../quiet-wasi-warning.ts";
import { randomBytes } from "node:crypto";
import { WASI } from "node:wasi";
import { GuestMemory } from "../abi.ts";
import { freshMemory, type ImagedModule } from "../memory-image.ts";
import { HeaderList } from "../header-list.ts";
import type { LocalServerConfig } from "../manifest.ts";
import type { HostLink } from "../rpc.ts";
import type { GuestContext } from "./context.ts";
import { httpBodyModule, httpRequestModule, httpResponseModule } from "./http-imports.ts";
import { Body, Handles } from "./resources.ts";
import {
  asyncIoModule,
  backendModule,
  configStoreModule,
  kvStoreModule,
  logModule,
  secretStoreModule,
} from "./service-imports.ts";

export interface DownstreamRequest {
  method: string;
  /** Absolute, built from the Host header like Viceroy does. */
  url: string;
  headers: [string, string][];
  body: Uint8Array;
}

export interface GuestOutcome {
  exitCode: number | undefined;
  error: string | undefined;
}

// The environment Compute gives every instance (the values Viceroy uses locally).
const computeEnvironment = () => ({
  FASTLY_CACHE_GENERATION: "0",
  FASTLY_CUSTOMER_ID: "0000000000000000000000",
  FASTLY_HOSTNAME: "localhost",
  FASTLY_IS_STAGING: "0",
  FASTLY_POP: "XXX",
  FASTLY_REGION: "Somewhere",
  FASTLY_SERVICE_ID: "0000000000000000000000",
  FASTLY_SERVICE_VERSION: "0",
  FASTLY_TRACE_ID: randomBytes(16).toString("hex"),
});

/**
 * Makes the fresh instances of one compiled service, each ready before its request arrives. With
 * an imaged module (see memory-image.ts) the instance's memory is a copy of the initialised
 * image, in a memory this thread has used before: its pages are already mapped, so the copy is
 * one memcpy instead of thousands of page faults. The bytes are exactly those of a fresh
 * instantiation; a memory that grew is not reused.
 */
export class GuestFactory {
  private used: WebAssembly.Memory | undefined;

  constructor(
    private readonly module: WebAssembly.Module,
    private readonly config: LocalServerConfig,
    private readonly link: HostLink,
    private readonly imaged?: ImagedModule,
  ) {}

  /** A new instance, with every import bound, waiting for its request. */
  prepare(): PreparedGuest {
    const handles = new Handles();
    let memory: WebAssembly.Memory | undefined = this.imaged && this.imagedMemory(this.imaged);
    const ctx: GuestContext = {
      memory: new GuestMemory(() => memory ?? failNoMemory()),
      handles,
      link: this.link,
      config: this.config,
      downstream: { request: 0, body: 0 },
      response: { sent: false },
    };
    const wasi = new WASI({ version: "preview1", args: ["main.wasm"], env: computeEnvironment(), returnOnExit: true });
    const module = this.imaged?.module ?? this.module;
    const imports = importObject(module, ctx, wasi);
    if (this.imaged) imports[this.imaged.memory.module] = { [this.imaged.memory.name]: memory! };
    let instance: WebAssembly.Instance | undefined;
    let failure: unknown;
    try {
      instance = new WebAssembly.Instance(module, imports);
      memory = instance.exports.memory as WebAssembly.Memory;
    } catch (error) {
      failure = error; // reported with the request it was made for, as a fresh instantiation would
    }
    return {
      run: (request) => {
        ctx.downstream = {
          request: handles.add({ kind: "request", method: request.method, uri: request.url, headers: HeaderList.from(request.headers) }),
          body: handles.add(new Body(request.body)),
        };
        const outcome = start(ctx, wasi, instance, failure);
        this.used = memory;
        return outcome;
      },
    };
  }

  private imagedMemory(imaged: ImagedModule): WebAssembly.Memory {
    const memory = this.used;
    this.used = undefined;
    if (!memory || memory.buffer.byteLength !== imaged.memory.initial * 65_536) return freshMemory(imaged);
    const bytes = new Uint8Array(memory.buffer);
    bytes.set(imaged.image);
    bytes.fill(0, imaged.image.length);
    return memory;
  }
}

export interface PreparedGuest {
  /** Runs the request in this instance; call once. */
  run(request: DownstreamRequest): GuestOutcome;
}

/** Runs one request in a fresh instance of the compiled service, as Compute does. */
export function runGuest(module: WebAssembly.Module, config: LocalServerConfig, link: HostLink, request: DownstreamRequest): GuestOutcome {
  return new GuestFactory(module, config, link).prepare().run(request);
}

function start(ctx: GuestContext, wasi: WASI, instance: WebAssembly.Instance | undefined, failure: unknown): GuestOutcome {
  const outcome: GuestOutcome = { exitCode: undefined, error: undefined };
  try {
    if (!instance) throw failure;
    outcome.exitCode = wasi.start(instance);
  } catch (error) {
    outcome.error = error instanceof Error ? (error.stack ?? error.message) : String(error);
  }
  if (!ctx.response.sent) {
    const reason = outcome.error ?? `the guest exited (code ${outcome.exitCode}) without sending a response`;
    ctx.link.emit({ event: "response", status: 500, headers: [["content-type", "text/plain"]], body: Buffer.from(`${reason}\n`) });
  } else if (ctx.response.streamingBody !== undefined) {
    ctx.link.emit({ event: "end", complete: false });
  }
  return outcome;
}

function importObject(module: WebAssembly.Module, ctx: GuestContext, wasi: WASI): Record<string, Record<string, WebAssembly.ImportValue>> {
  const wasiImports = wasi.getImportObject() as { wasi_snapshot_preview1: Record<string, unknown> };
  const provided: Record<string, Record<string, unknown>> = {
    wasi_snapshot_preview1: { ...wasiImports.wasi_snapshot_preview1, fd_write: consoleWriter(ctx, wasiImports.wasi_snapshot_preview1.fd_write) },
    fastly_http_req: httpRequestModule(ctx),
    fastly_http_resp: httpResponseModule(ctx),
    fastly_http_body: httpBodyModule(ctx),
    fastly_async_io: asyncIoModule(ctx),
    fastly_kv_store: kvStoreModule(ctx),
    fastly_config_store: configStoreModule(ctx),
    fastly_secret_store: secretStoreModule(ctx),
    fastly_log: logModule(ctx),
    fastly_backend: backendModule(ctx),
  };
  // Whatever the service imports and this host does not implement fails loudly when called.
  const imports: Record<string, Record<string, WebAssembly.ImportValue>> = {};
  for (const { module: name, name: field } of WebAssembly.Module.imports(module)) {
    const implementation = provided[name]?.[field] as WebAssembly.ImportValue | undefined;
    (imports[name] ??= {})[field] = implementation ?? unimplemented(name, field);
  }
  return imports;
}

function unimplemented(module: string, name: string) {
  return () => {
    throw new Error(`unimplemented host call ${module}.${name} (the Fastly test host implements only what this service uses)`);
  };
}

/** stdout and stderr (the guest's console) go to the host's log; other descriptors to WASI. */
function consoleWriter(ctx: GuestContext, fdWrite: unknown) {
  const decoders = new Map<number, TextDecoder>();
  return (fd: number, iovs: number, count: number, nwrittenOut: number): number => {
    if (fd !== 1 && fd !== 2) return (fdWrite as (...args: number[]) => number)(fd, iovs, count, nwrittenOut);
    const decoder = decoders.get(fd) ?? decoders.set(fd, new TextDecoder()).get(fd)!;
    let text = "";
    let written = 0;
    for (let i = 0; i < count; i++) {
      const len = ctx.memory.u32(iovs + 8 * i + 4);
      text += decoder.decode(ctx.memory.bytes(ctx.memory.u32(iovs + 8 * i), len), { stream: true });
      written += len;
    }
    ctx.link.emit({ event: "log", stream: fd === 1 ? "stdout" : "stderr", text });
    ctx.memory.setU32(nwrittenOut, written);
    return 0;
  };
}

function failNoMemory(): never {
  throw new Error("the guest called the host before its memory was available");
}
