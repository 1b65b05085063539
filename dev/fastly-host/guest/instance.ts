import "../quiet-wasi-warning.ts";
import { randomBytes } from "node:crypto";
import { WASI } from "node:wasi";
import { GuestMemory } from "../abi.ts";
import type { LocalServerConfig } from "../manifest.ts";
import type { ImagedModule } from "../memory-image.ts";
import { freshMemory, restoreImage } from "../memory-reset.ts";
import type { HostLink } from "../rpc.ts";
import type { GuestContext } from "./context.ts";
import { beginRequest, endRequest, httpDownstreamModule } from "./downstream.ts";
import { erlModule } from "./erl-imports.ts";
import { httpBodyModule, httpRequestModule, httpResponseModule } from "./http-imports.ts";
import { Handles } from "./resources.ts";
import {
  asyncIoModule,
  backendModule,
  computeRuntimeModule,
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
  /** The peer of the client's connection, as Compute hands it (`event.client.address`). */
  clientAddress: string;
}

interface GuestOutcome {
  exitCode: number | undefined;
  error: string | undefined;
  /** The instance ended between requests: it served its last one and found no other. */
  betweenRequests?: true;
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
 * Makes the fresh instances of one compiled service, each ready before its request arrives.
 *
 * With an imaged module (memory-image.ts) the worker keeps one instance and, between requests,
 * puts it back into the state a fresh instantiation gives: its memory holds the image again
 * (zeros beyond it), its mutable globals their first values, no handles, a new WASI environment.
 * With the table, whose size is fixed and which the engine only calls through, that is the
 * instance's whole state, what Compute gets from its snapshot. A memory that grew is not reset:
 * a new instance is made.
 * Re-instantiating per request instead costs tens of milliseconds of V8 work per instance here.
 */
export class GuestFactory {
  private resettable: ResettableInstance | undefined;

  /** `service`: the module as it is, or imaged (memory-image.ts) when it could be. */
  constructor(
    private readonly service: WebAssembly.Module | ImagedModule,
    private readonly config: LocalServerConfig,
    private readonly link: HostLink,
  ) {}

  /** A fresh instance, with every import bound, waiting for its request. */
  prepare(): PreparedGuest {
    if (this.service instanceof WebAssembly.Module) return this.instantiated(this.service);
    try {
      if (!this.resettable?.reset()) this.resettable = new ResettableInstance(this.service, this.config, this.link);
      return this.resettable.prepared();
    } catch (error) {
      this.resettable = undefined;
      return this.failed(error);
    }
  }

  /** A new instance of a module that could not be imaged. */
  private instantiated(module: WebAssembly.Module): PreparedGuest {
    let memory: WebAssembly.Memory | undefined;
    const ctx = newContext(() => memory ?? failNoMemory(), this.config, this.link);
    const wasi = newWasi();
    let instance: WebAssembly.Instance;
    try {
      instance = new WebAssembly.Instance(module, importObject(module, ctx, wasiImports(wasi)));
      memory = instance.exports.memory as WebAssembly.Memory;
    } catch (error) {
      return this.failed(error);
    }
    return { run: (request) => start(ctx, request, () => wasi.start(instance)) };
  }

  /** An instance that could not be made: the failure is reported with the request it was made for. */
  private failed(error: unknown): PreparedGuest {
    const ctx = newContext(failNoMemory, this.config, this.link);
    return { run: (request) => start(ctx, request, () => fail(error)) };
  }
}

class ResettableInstance {
  private readonly memory: WebAssembly.Memory;
  private readonly ctx: GuestContext;
  private readonly instance: WebAssembly.Instance;
  private readonly globals: { global: WebAssembly.Global; value: unknown }[];
  private wasi = newWasi();
  private wasiFunctions = wasiImports(this.wasi);

  constructor(
    private readonly imaged: ImagedModule,
    config: LocalServerConfig,
    link: HostLink,
  ) {
    this.memory = freshMemory(imaged);
    this.ctx = newContext(() => this.memory, config, link);
    // WASI is new for every request; the instance's imports reach the current one.
    const forwarding = Object.fromEntries(
      Object.keys(this.wasiFunctions).map((name) => [
        name,
        (...args: number[]) => (this.wasiFunctions[name] as (...a: number[]) => number)(...args),
      ]),
    );
    const imports = importObject(imaged.module, this.ctx, forwarding);
    imports[imaged.memory.module] = { [imaged.memory.name]: this.memory };
    this.instance = new WebAssembly.Instance(imaged.module, imports);
    const exports = this.instance.exports;
    this.globals = imaged.state.globals.map((name) => {
      const global = exports[name] as WebAssembly.Global;
      return { global, value: global.value };
    });
  }

  /** Back to the state of a fresh instantiation; false when that cannot be done in place. */
  reset(): boolean {
    if (this.memory.buffer.byteLength !== this.imaged.memory.initial * 65_536) return false;
    restoreImage(this.imaged, this.memory);
    for (const { global, value } of this.globals) global.value = value;
    this.ctx.handles.clear();
    this.ctx.response = { sent: false };
    this.ctx.nextRequestPending = false;
    this.wasi = newWasi();
    this.wasiFunctions = wasiImports(this.wasi);
    return true;
  }

  prepared(): PreparedGuest {
    const exports = { memory: this.memory, _start: this.instance.exports._start };
    return {
      run: (request) => start(this.ctx, request, () => this.wasi.start({ exports } as unknown as WebAssembly.Instance)),
    };
  }
}

interface PreparedGuest {
  /** Runs the request in this instance; call once. */
  run(request: DownstreamRequest): GuestOutcome;
}

/** Runs one request in a fresh instance of the compiled service, as Compute does. */
export function runGuest(
  module: WebAssembly.Module,
  config: LocalServerConfig,
  link: HostLink,
  request: DownstreamRequest,
): GuestOutcome {
  return new GuestFactory(module, config, link).prepare().run(request);
}

function newContext(memory: () => WebAssembly.Memory, config: LocalServerConfig, link: HostLink): GuestContext {
  return {
    memory: new GuestMemory(memory),
    handles: new Handles(),
    link,
    config,
    downstream: { request: 0, body: 0, clientAddress: "" },
    requestOpen: false,
    nextRequestPending: false,
    response: { sent: false },
  };
}

const newWasi = () =>
  new WASI({ version: "preview1", args: ["main.wasm"], env: computeEnvironment(), returnOnExit: true });

const wasiImports = (wasi: WASI) =>
  (wasi.getImportObject() as { wasi_snapshot_preview1: Record<string, unknown> }).wasi_snapshot_preview1;

/**
 * Hands the request to the instance and runs it; the client gets a 500 if it never answers. An
 * instance that asks for more requests (downstream.ts) serves them within this run.
 */
function start(ctx: GuestContext, request: DownstreamRequest, run: () => number | undefined): GuestOutcome {
  beginRequest(ctx, request);
  const outcome: GuestOutcome = { exitCode: undefined, error: undefined };
  try {
    outcome.exitCode = run();
  } catch (error) {
    outcome.error = error instanceof Error ? (error.stack ?? error.message) : String(error);
  }
  if (!ctx.requestOpen) return { ...outcome, betweenRequests: true };
  endRequest(ctx, () => outcome.error ?? `the guest exited (code ${outcome.exitCode}) without sending a response`);
  return outcome;
}

function fail(error: unknown): never {
  throw error;
}

function importObject(
  module: WebAssembly.Module,
  ctx: GuestContext,
  wasi: Record<string, unknown>,
): Record<string, Record<string, WebAssembly.ImportValue>> {
  const provided: Record<string, Record<string, unknown>> = {
    wasi_snapshot_preview1: { ...wasi, fd_write: consoleWriter(ctx, wasi.fd_write) },
    fastly_http_req: httpRequestModule(ctx),
    fastly_http_resp: httpResponseModule(ctx),
    fastly_http_body: httpBodyModule(ctx),
    fastly_http_downstream: httpDownstreamModule(ctx),
    fastly_async_io: asyncIoModule(ctx),
    fastly_kv_store: kvStoreModule(ctx),
    fastly_config_store: configStoreModule(ctx),
    fastly_secret_store: secretStoreModule(ctx),
    fastly_log: logModule(ctx),
    fastly_compute_runtime: computeRuntimeModule(ctx),
    fastly_backend: backendModule(ctx),
    fastly_erl: erlModule(ctx),
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
    throw new Error(
      `unimplemented host call ${module}.${name} (the Fastly test host implements only what this service uses)`,
    );
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
