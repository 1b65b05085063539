// Sizes of a wasm module's sections, to tell what a build spends its bytes on.

/** Bytes in the code section, the data section, and everything else. */
export function wasmSections(wasm: Uint8Array): { code: number; data: number; other: number } {
  const sizes = { code: 0, data: 0, other: 0 };
  let at = 8; // magic and version
  const leb = () => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = wasm[at++]!;
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
  };
  while (at < wasm.length) {
    const id = wasm[at++]!;
    const size = leb();
    if (id === 10) sizes.code += size;
    else if (id === 11) sizes.data += size;
    else sizes.other += size;
    at += size;
  }
  return sizes;
}
