import { describe, expect, it } from "vitest";
import { IMPORTED_MEMORY, imageModule, rewriteForImage } from "./memory-image.ts";
import { freshMemory, restoreImage } from "./memory-reset.ts";

// A module assembled by hand: one memory (2 pages), exported, with data segments at two offsets,
// and a function `poke` that writes a byte, to show each instance's memory starts from the image.
const section = (id: number, bytes: number[]) => [id, bytes.length, ...bytes];
const name = (text: string) => [text.length, ...Buffer.from(text)];

/** An active data segment at `offset` (an i32.const below 2^20), for memory 0. */
const segment = (offset: number, bytes: number[]) => [
  0x00,
  0x41,
  ...[(offset & 0x7f) | 0x80, ((offset >> 7) & 0x7f) | 0x80, (offset >> 14) & 0x3f],
  0x0b,
  bytes.length,
  ...bytes,
];

function moduleBytes(
  limits = [0x01, 0x02, 0x04], // flags (has a maximum), 2 pages, at most 4
  data = [0x02, ...segment(2, [7, 8, 9]), ...segment(400, [5, 6])],
): Uint8Array<ArrayBuffer> {
  // poke(): i32.store8 offset=0 (i32.const 3) (i32.const 99)
  const body = [0x00, 0x41, 0x03, 0x41, 0xe3, 0x00, 0x3a, 0x00, 0x00, 0x0b];
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [0x01, 0x60, 0x00, 0x00]),
    ...section(2, [0x01, ...name("env"), ...name("nothing"), 0x00, 0x00]),
    ...section(3, [0x01, 0x00]),
    ...section(5, [0x01, ...limits]),
    ...section(7, [0x02, ...name("memory"), 0x02, 0x00, ...name("poke"), 0x00, 0x01]),
    ...section(10, [0x01, body.length, ...body]),
    ...section(11, data),
  ]);
}

const imports = { env: { nothing: () => {} } };

describe("imageModule", () => {
  it("makes instances whose memory holds exactly what a plain instantiation's does", () => {
    const wasm = moduleBytes();
    const plain = new WebAssembly.Instance(new WebAssembly.Module(wasm), imports);
    const imaged = imageModule(wasm)!;
    expect(imaged.memory).toEqual({ ...IMPORTED_MEMORY, initial: 2, maximum: 4 });
    const memory = freshMemory(imaged);
    const instance = new WebAssembly.Instance(imaged.module, {
      ...imports,
      [IMPORTED_MEMORY.module]: { [IMPORTED_MEMORY.name]: memory },
    });
    const bytes = (m: WebAssembly.Memory) => Buffer.from(m.buffer);
    expect(
      bytes(instance.exports.memory as WebAssembly.Memory).equals(bytes(plain.exports.memory as WebAssembly.Memory)),
    ).toBe(true);
    expect([...bytes(memory).subarray(2, 5)]).toEqual([7, 8, 9]);
    expect([...bytes(memory).subarray(400, 402)]).toEqual([5, 6]);
  });

  it("keeps the image apart from the instances: what one writes, the next does not see", () => {
    const imaged = imageModule(moduleBytes())!;
    const run = () => {
      const memory = freshMemory(imaged);
      const instance = new WebAssembly.Instance(imaged.module, {
        ...imports,
        [IMPORTED_MEMORY.module]: { [IMPORTED_MEMORY.name]: memory },
      });
      const before = new Uint8Array(memory.buffer)[3];
      (instance.exports.poke as () => void)();
      return { before, after: new Uint8Array(memory.buffer)[3] };
    };
    expect(run()).toEqual({ before: 8, after: 99 });
    expect(run()).toEqual({ before: 8, after: 99 });
  });

  it("rewrites services that differ only in their memory's size and data into the same module", () => {
    const small = rewriteForImage(moduleBytes())!;
    const large = rewriteForImage(moduleBytes([0x00, 0x05], [0x01, ...segment(70_000, [1, 2])]))!;
    expect(large.memory).toMatchObject({ initial: 5, maximum: undefined });
    expect(Buffer.from(large.bytes).equals(Buffer.from(small.bytes))).toBe(true);
    expect(Buffer.from(large.image).equals(Buffer.from(small.image))).toBe(false);
  });

  it("leaves a module without data segments alone", () => {
    const bare = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, ...section(5, [0x01, 0x00, 0x01])]);
    expect(imageModule(bare)).toBeUndefined();
  });
});

describe("restoreImage", () => {
  // 4 pages: data in the first and third, zeros in the second and fourth (past the image).
  const imaged = imageModule(
    moduleBytes([0x00, 0x04], [0x02, ...segment(2, [7, 8, 9]), ...segment(2 * 65_536 + 5, [4, 2])]),
  )!;
  const pristine = Buffer.from(freshMemory(imaged).buffer);

  it("finds the chunks that are zeros, in the image and past it", () => {
    expect(imaged.image.length).toBe(3 * 65_536);
    expect(imaged.zeroRuns).toEqual([
      { start: 65_536, end: 2 * 65_536 },
      { start: 3 * 65_536, end: 4 * 65_536 },
    ]);
  });

  it("puts back every byte a request wrote, in data and in zeros alike", () => {
    const memory = freshMemory(imaged);
    const bytes = new Uint8Array(memory.buffer);
    for (const at of [0, 3, 65_535, 65_536, 100_000, 2 * 65_536 + 5, 3 * 65_536, 4 * 65_536 - 1]) bytes[at] = 0xaa;
    restoreImage(imaged, memory);
    expect(Buffer.from(memory.buffer).equals(pristine)).toBe(true);
  });

  it("leaves a memory nothing wrote to as it is", () => {
    const memory = freshMemory(imaged);
    restoreImage(imaged, memory);
    expect(Buffer.from(memory.buffer).equals(pristine)).toBe(true);
    expect([...pristine.subarray(2 * 65_536 + 5, 2 * 65_536 + 7)]).toEqual([4, 2]);
  });
});
