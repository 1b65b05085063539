import { describe, expect, it } from "vitest";
import { freshMemory, IMPORTED_MEMORY, imageModule } from "./memory-image.ts";

// A module assembled by hand: one memory (2 pages), exported, with data segments at two offsets,
// and a function `poke` that writes a byte, to show each instance's memory starts from the image.
const section = (id: number, bytes: number[]) => [id, bytes.length, ...bytes];
const name = (text: string) => [text.length, ...Buffer.from(text)];

function moduleBytes(): Uint8Array<ArrayBuffer> {
  // poke(): i32.store8 offset=0 (i32.const 3) (i32.const 99)
  const body = [0x00, 0x41, 0x03, 0x41, 0xe3, 0x00, 0x3a, 0x00, 0x00, 0x0b];
  const data = [0x02, 0x00, 0x41, 0x02, 0x0b, 3, 7, 8, 9, 0x00, 0x41, 0x90, 0x03, 0x0b, 2, 5, 6];
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [0x01, 0x60, 0x00, 0x00]),
    ...section(2, [0x01, ...name("env"), ...name("nothing"), 0x00, 0x00]),
    ...section(3, [0x01, 0x00]),
    ...section(5, [0x01, 0x01, 0x02, 0x04]),
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

  it("leaves a module without data segments alone", () => {
    const bare = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, ...section(5, [0x01, 0x00, 0x01])]);
    expect(imageModule(bare)).toBeUndefined();
  });
});
