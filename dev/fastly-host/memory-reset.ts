// Putting an instance's memory back into the state a fresh instantiation gives, after each
// request. That is the largest part of the host's own work per request: copying is bound by
// memory bandwidth (~1 ms for the service's 12 MB here). Two things make it cheaper: each worker
// copies from its own image (copying out of a SharedArrayBuffer takes V8's slower word-by-word
// path), and the chunks that are zeros in the image are only read, and cleared only when the
// request wrote there (it rarely does).
import type { ImagedModule } from "./memory-image.ts";

export interface ByteRange {
  start: number;
  end: number;
}

/** The granularity of the image and of its zero runs: one wasm page. */
export const CHUNK = 65_536;

const ZEROS = Buffer.alloc(CHUNK);

/** A new memory for one instance, holding the image. */
export function freshMemory(imaged: ImagedModule): WebAssembly.Memory {
  const { initial, maximum } = imaged.memory;
  const memory = new WebAssembly.Memory(maximum === undefined ? { initial } : { initial, maximum });
  new Uint8Array(memory.buffer).set(imaged.image);
  return memory;
}

/**
 * Puts `memory`, of the module's initial size, back to the image: the image's chunks holding data
 * are copied, and a chunk that should be zeros is cleared only if something was written to it.
 */
export function restoreImage(imaged: ImagedModule, memory: WebAssembly.Memory): void {
  const bytes = Buffer.from(memory.buffer);
  let at = 0;
  for (const zeros of imaged.zeroRuns) {
    if (zeros.start > at) bytes.set(imaged.image.subarray(at, zeros.start), at);
    for (let chunk = zeros.start; chunk < zeros.end; chunk += CHUNK) {
      if (bytes.compare(ZEROS, 0, CHUNK, chunk, chunk + CHUNK) !== 0) bytes.fill(0, chunk, chunk + CHUNK);
    }
    at = zeros.end;
  }
  if (at < imaged.image.length) bytes.set(imaged.image.subarray(at), at);
}

/** The runs of whole chunks of the initial memory (`memoryBytes`) that hold zeros in `image`. */
export function zeroRuns(image: Uint8Array, memoryBytes: number): ByteRange[] {
  const runs: ByteRange[] = [];
  const bytes = Buffer.from(image.buffer, image.byteOffset, image.length);
  for (let chunk = 0; chunk < memoryBytes; chunk += CHUNK) {
    const isZero = chunk >= image.length || bytes.compare(ZEROS, 0, CHUNK, chunk, chunk + CHUNK) === 0;
    if (!isZero) continue;
    const last = runs.at(-1);
    if (last?.end === chunk) last.end += CHUNK;
    else runs.push({ start: chunk, end: chunk + CHUNK });
  }
  return runs;
}
