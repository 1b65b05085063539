// A fresh instance per request without paying for the wasm's initialised memory on every one.
//
// js-compute's wasm carries the engine's snapshot as ~10 000 active data segments (MBs); V8
// applies them one by one at every instantiation, which costs tens of milliseconds. Here the
// module is rewritten once: its memory becomes an import and its data segments go into one
// image. Each instance then gets a new memory holding a copy of that image (one memcpy): the same
// bytes a fresh instantiation would produce, in a fraction of the time.
//
// The rewritten module declares its memory import without limits (the memory given carries the
// module's own): two services built by the same js-compute then differ only in what this takes
// out, so their rewritten modules are the same bytes, which V8 compiles, and tiers up, once per
// process (the benchmark's bare KV get and the service share that work).

import { readSections, readUleb, type Section } from "../build/wasm-sections.ts";
import { type ByteRange, CHUNK, zeroRuns } from "./memory-reset.ts";

export interface ImagedModule {
  /**
   * The service with its memory imported as `memory.module`/`memory.name`, no data segments, and
   * its mutable globals exported as `STATE_EXPORT` + index, so that an instance can be put back
   * into the state a fresh instantiation gives (see instance.ts).
   */
  module: WebAssembly.Module;
  /** Exported names of the mutable globals. */
  state: { globals: string[] };
  memory: { module: string; name: string; initial: number; maximum: number | undefined };
  /**
   * The memory's first bytes after every data segment was applied, to a whole number of 64 KiB
   * chunks (the rest is zeros).
   */
  image: Uint8Array;
  /** The runs of whole 64 KiB chunks of the initial memory that are zeros, image and rest alike. */
  zeroRuns: ByteRange[];
}

export const IMPORTED_MEMORY = { module: "fastly_host", name: "memory" } as const;
const STATE_EXPORT = "fastly_host_state_";

/** Limits of the memory import: at least 0 pages, no maximum. */
const NO_LIMITS = Uint8Array.of(0x00, 0x00);

const SECTION = { import: 2, table: 4, memory: 5, global: 6, export: 7, data: 11, dataCount: 12 } as const;

/** Rewrites and compiles `wasm`, or returns undefined for a module this cannot handle (it is then run as is). */
export function imageModule(wasm: Uint8Array): ImagedModule | undefined {
  const rewritten = rewriteForImage(wasm);
  if (!rewritten) return undefined;
  const { bytes, ...imaged } = rewritten;
  try {
    const module = new WebAssembly.Module(bytes);
    return { module, ...imaged, zeroRuns: zeroRuns(imaged.image, imaged.memory.initial * CHUNK) };
  } catch {
    return undefined; // e.g. code that refers to data segments (memory.init, data.drop)
  }
}

/** The rewritten module's bytes and what an instance of it needs; undefined when `wasm` does not qualify. */
export function rewriteForImage(
  wasm: Uint8Array,
): (Omit<ImagedModule, "module" | "zeroRuns"> & { bytes: Uint8Array<ArrayBuffer> }) | undefined {
  const sections = readSections(wasm);
  const memories = sections.filter((s) => s.id === SECTION.memory);
  const data = sections.find((s) => s.id === SECTION.data);
  if (memories.length !== 1 || !data || !sections.some((s) => s.id === SECTION.import)) return undefined;
  const limits = readMemoryLimits(wasm, memories[0]!);
  const segments = readActiveSegments(wasm, data);
  if (!limits || !segments) return undefined;

  const end = Math.max(0, ...segments.map((s) => s.offset + s.bytes.length));
  const image = new Uint8Array(Math.ceil(end / CHUNK) * CHUNK);
  for (const segment of segments) image.set(segment.bytes, segment.offset);

  const mutableGlobals = readMutableGlobals(
    wasm,
    sections.find((s) => s.id === SECTION.global),
  );
  const exportSection = sections.find((s) => s.id === SECTION.export);
  if (!mutableGlobals || !exportSection || sections.some((s) => s.id === SECTION.import && importsGlobals(wasm, s)))
    return undefined;
  // The table is not put back between requests (that costs ~10 ms a request through the JS API):
  // only a module whose one table has a fixed size qualifies. js-compute's engine has no JIT in the
  // wasm and only calls through its table; a table that could grow would say otherwise.
  const table = sections.find((s) => s.id === SECTION.table);
  if (table && !fixedSizeTable(wasm, table)) return undefined;
  const state = { globals: mutableGlobals.map((i) => `${STATE_EXPORT}global_${i}`) };
  const stateExports = mutableGlobals.map((i) => exportEntry(`${STATE_EXPORT}global_${i}`, 0x03, i));

  const memoryImport = importEntry(IMPORTED_MEMORY.module, IMPORTED_MEMORY.name, NO_LIMITS);
  const parts: Uint8Array[] = [wasm.subarray(0, 8)];
  for (const section of sections) {
    if (section.id === SECTION.memory || section.id === SECTION.data || section.id === SECTION.dataCount) continue;
    const { count, rest } = readCount(wasm, section);
    if (section.id === SECTION.import)
      parts.push(sectionBytes(SECTION.import, concat([uleb(count + 1), memoryImport, rest])));
    else if (section.id === SECTION.export) {
      parts.push(sectionBytes(SECTION.export, concat([uleb(count + stateExports.length), rest, ...stateExports])));
    } else parts.push(wasm.subarray(section.start, section.end));
  }
  const memory = { ...IMPORTED_MEMORY, initial: limits.initial, maximum: limits.maximum };
  return { bytes: concat(parts), state, memory, image };
}

function readMemoryLimits(wasm: Uint8Array, section: Section) {
  const count = readUleb(wasm, section.payload);
  if (count.value !== 1) return undefined;
  const flags = wasm[count.next]!;
  if (flags !== 0 && flags !== 1) return undefined; // shared or 64-bit memories: not produced by js-compute
  const initial = readUleb(wasm, count.next + 1);
  const maximum = flags === 1 ? readUleb(wasm, initial.next) : undefined;
  return { initial: initial.value, maximum: maximum?.value };
}

/** Every segment, when all are active, for memory 0, at an i32.const offset; else undefined. */
function readActiveSegments(wasm: Uint8Array, section: Section) {
  const count = readUleb(wasm, section.payload);
  const segments: { offset: number; bytes: Uint8Array }[] = [];
  let at = count.next;
  for (let i = 0; i < count.value; i++) {
    if (wasm[at++] !== 0 || wasm[at++] !== 0x41) return undefined; // active, memory 0; i32.const
    const offset = readSleb(wasm, at);
    if (wasm[offset.next] !== 0x0b) return undefined; // end of the offset expression
    const length = readUleb(wasm, offset.next + 1);
    segments.push({ offset: offset.value, bytes: wasm.subarray(length.next, length.next + length.value) });
    at = length.next + length.value;
  }
  return segments.every((s) => s.offset >= 0) ? segments : undefined;
}

/** Indexes of the module's mutable globals, or undefined for an init expression not understood. */
function readMutableGlobals(wasm: Uint8Array, section: Section | undefined): number[] | undefined {
  if (!section) return [];
  const count = readUleb(wasm, section.payload);
  const mutable: number[] = [];
  let at = count.next;
  for (let i = 0; i < count.value; i++) {
    const isMutable = wasm[at + 1] === 1;
    at += 2;
    const op = wasm[at++];
    if (op === 0x41 || op === 0x42)
      at = readSleb(wasm, at).next; // i32.const, i64.const
    else if (op === 0x43)
      at += 4; // f32.const
    else if (op === 0x44)
      at += 8; // f64.const
    else return undefined;
    if (wasm[at++] !== 0x0b) return undefined;
    if (isMutable) mutable.push(i);
  }
  return mutable;
}

/** Whether the import section imports a global (global indexes would then not start at 0). */
function importsGlobals(wasm: Uint8Array, section: Section): boolean {
  const count = readUleb(wasm, section.payload);
  let at = count.next;
  for (let i = 0; i < count.value; i++) {
    for (let name = 0; name < 2; name++) {
      const length = readUleb(wasm, at);
      at = length.next + length.value;
    }
    const kind = wasm[at++];
    if (kind === 0x03) return true;
    if (kind === 0x00) at = readUleb(wasm, at).next;
    else if (kind === 0x01) at = skipLimits(wasm, at + 1);
    else if (kind === 0x02) at = skipLimits(wasm, at);
    else return true; // unknown: refuse
  }
  return false;
}

function skipLimits(wasm: Uint8Array, at: number): number {
  const flags = wasm[at++]!;
  at = readUleb(wasm, at).next;
  return flags & 1 ? readUleb(wasm, at).next : at;
}

/** One table whose minimum and maximum size are equal: it can never grow. */
function fixedSizeTable(wasm: Uint8Array, section: Section): boolean {
  const count = readUleb(wasm, section.payload);
  if (count.value !== 1) return false;
  const flags = wasm[count.next + 1]; // after the element type
  if (flags !== 1) return false;
  const min = readUleb(wasm, count.next + 2);
  return readUleb(wasm, min.next).value === min.value;
}

function exportEntry(name: string, kind: number, index: number): Uint8Array {
  const bytes = new TextEncoder().encode(name);
  return concat([uleb(bytes.length), bytes, Uint8Array.of(kind), uleb(index)]);
}

function readCount(wasm: Uint8Array, section: Section) {
  const count = readUleb(wasm, section.payload);
  return { count: count.value, rest: wasm.subarray(count.next, section.end) };
}

function importEntry(module: string, name: string, limits: Uint8Array): Uint8Array {
  const text = (value: string) => {
    const bytes = new TextEncoder().encode(value);
    return concat([uleb(bytes.length), bytes]);
  };
  return concat([text(module), text(name), Uint8Array.of(0x02), limits]);
}

function sectionBytes(id: number, payload: Uint8Array): Uint8Array {
  return concat([Uint8Array.of(id), uleb(payload.length), payload]);
}

function readSleb(bytes: Uint8Array, at: number): { value: number; next: number } {
  let value = 0;
  let shift = 0;
  let byte: number;
  do {
    byte = bytes[at++]!;
    value |= (byte & 0x7f) << shift;
    shift += 7;
  } while (byte & 0x80);
  if (shift < 32 && byte & 0x40) value |= -1 << shift;
  return { value, next: at };
}

function uleb(value: number): Uint8Array {
  const out: number[] = [];
  do {
    let byte = value & 0x7f;
    value = Math.floor(value / 128);
    if (value > 0) byte |= 0x80;
    out.push(byte);
  } while (value > 0);
  return Uint8Array.from(out);
}

function concat(parts: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(new ArrayBuffer(parts.reduce((sum, part) => sum + part.length, 0)));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
