import { fail, type GuestMemory, Status } from "./abi.ts";

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// A header value is any bytes but NUL, CR and LF (the `http` crate's rule).
const FORBIDDEN_IN_VALUE = /[\0\r\n]/;

/**
 * A message's header map as the host keeps it: names lower-cased, values in the order added,
 * names in the order first seen. Names and values are byte strings (one char per byte).
 */
export class HeaderList {
  private readonly map = new Map<string, string[]>();

  static from(entries: Iterable<readonly [string, string]>): HeaderList {
    const list = new HeaderList();
    for (const [name, value] of entries) list.append(name, value);
    return list;
  }

  names(): string[] {
    return [...this.map.keys()];
  }

  values(name: string): string[] {
    return this.map.get(name.toLowerCase()) ?? [];
  }

  insert(name: string, value: string): void {
    this.map.set(checkName(name), [checkValue(value)]);
  }

  append(name: string, value: string): void {
    const key = checkName(name);
    this.map.set(key, [...(this.map.get(key) ?? []), checkValue(value)]);
  }

  /** False when there was no such header (the guest then gets INVAL, as from Viceroy). */
  remove(name: string): boolean {
    return this.map.delete(name.toLowerCase());
  }

  entries(): [string, string][] {
    return [...this.map].flatMap(([name, values]) => values.map((value): [string, string] => [name, value]));
  }
}

function checkName(name: string): string {
  if (!TOKEN.test(name)) fail(Status.ERROR, `invalid header name ${JSON.stringify(name)}`);
  return name.toLowerCase();
}

function checkValue(value: string): string {
  if (FORBIDDEN_IN_VALUE.test(value)) fail(Status.ERROR, "invalid header value");
  return value;
}

/**
 * The ABI's "multi-value" listing: from item `cursor` on, as many whole items as fit, each followed
 * by NUL; the ending cursor is the next item's index, or -1 when the list is exhausted. Not even one
 * item fitting is BUFLEN, with the size that item needs.
 */
export function writeMultiValue(
  memory: GuestMemory,
  items: readonly string[],
  [buf, bufLen, cursor, endingCursorOut, nwrittenOut]: readonly number[],
): void {
  let offset = 0;
  let next = cursor!;
  for (; next < items.length; next++) {
    const bytes = Buffer.from(`${items[next]}\0`, "latin1");
    if (offset + bytes.length > bufLen!) {
      if (offset === 0) {
        memory.setU32(nwrittenOut!, bytes.length);
        memory.setI64(endingCursorOut!, -1n);
        fail(Status.BUFLEN, "header buffer too small for one item");
      }
      break;
    }
    memory.write(buf! + offset, bytes);
    offset += bytes.length;
  }
  memory.setI64(endingCursorOut!, next < items.length ? BigInt(next) : -1n);
  memory.setU32(nwrittenOut!, offset);
}
