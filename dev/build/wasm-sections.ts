// A wasm module's sections, read from its bytes: for the build's size report.

interface Section {
  id: number;
  /** Where the section starts (its id byte) and ends, and where its payload starts. */
  start: number;
  end: number;
  payload: number;
}

function readSections(wasm: Uint8Array): Section[] {
  const sections: Section[] = [];
  let at = 8; // magic and version
  while (at < wasm.length) {
    const start = at;
    const id = wasm[at++]!;
    const size = readUleb(wasm, at);
    const payload = size.next;
    at = payload + size.value;
    sections.push({ id, start, end: at, payload });
  }
  return sections;
}

/** An unsigned LEB128 number at `at`, and where the next field starts. */
function readUleb(bytes: Uint8Array, at: number): { value: number; next: number } {
  let value = 0;
  for (let shift = 0; ; shift += 7) {
    const byte = bytes[at++]!;
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return { value, next: at };
  }
}

const CODE = 10;
const DATA = 11;

/** Bytes in the code section, the data section, and everything else. */
export function wasmSections(wasm: Uint8Array): { code: number; data: number; other: number } {
  const sizes = { code: 0, data: 0, other: 0 };
  for (const { id, payload, end } of readSections(wasm)) {
    const part = id === CODE ? "code" : id === DATA ? "data" : "other";
    sizes[part] += end - payload;
  }
  return sizes;
}
