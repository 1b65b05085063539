// Fastly KV keys may not contain `#;?^|`, CR or LF, may not be "", "." or "..", start with
// `.well-known/acme-challenge`, or exceed 1024 UTF-8 bytes, and Viceroy also refuses "./" anywhere
// in a key (so `..` segments and "a./b" too) and a key ending "/." (its is_valid_key). The KvCache
// port takes any string, so keys are escaped on the way in and unescaped when listed.
//
// The escape is percent-encoding of `%`, the forbidden characters, control characters and space,
// of a `.` that starts a segment, and of a `/` that follows a `.`. It looks at one character and
// the one before it only, so the escape of a prefix is a prefix of the escape of every key
// starting with it: listing by prefix still works.

const MAX_KEY_BYTES = 1024;
const ALWAYS_ESCAPED = /[%#;?^|\u0000-\u0020\u007f\ufffe\uffff]/;
// Whether anything in a key needs escaping at all: the same rules over the whole key at once.
const NEEDS_ESCAPE = /[%#;?^|\u0000-\u0020\u007f\ufffe\uffff]|(?:^|\/)\.|\.\//;
// No string of this many UTF-16 units or fewer exceeds MAX_KEY_BYTES in UTF-8 (3 bytes at most per unit).
const SURELY_SHORT_ENOUGH = Math.floor(MAX_KEY_BYTES / 3);

export function encodeKvKey(key: string): string {
  // Every link key (a prefix and a hex digest) takes this path: on Compute the JavaScript is
  // interpreted, and the loop below would be paid on every KV hit.
  if (!NEEDS_ESCAPE.test(key)) return key;
  let out = "";
  for (let i = 0; i < key.length; i++) {
    out += mustEscape(key[i]!, key[i - 1]) ? percent(key[i]!) : key[i];
  }
  return out;
}

/**
 * The port's key a stored key escapes, or undefined for one no port key escapes to: the store is
 * written by more than this service, and such a key (a bare `%`, an unescaped `#`) would
 * otherwise fail the whole listing, or be listed as a key that reads another entry.
 */
export function decodeKvKey(key: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(key);
  } catch {
    return undefined;
  }
  return encodeKvKey(decoded) === key ? decoded : undefined;
}

/** The escaped key, or an error Fastly would otherwise answer with (the port treats it as a miss). */
export function fastlyKey(key: string): string {
  const encoded = encodeKvKey(key);
  if (encoded === "") throw new RangeError("a Fastly KV key cannot be empty");
  if (encoded.length > SURELY_SHORT_ENOUGH && new TextEncoder().encode(encoded).length > MAX_KEY_BYTES) {
    throw new RangeError(`a Fastly KV key is at most ${MAX_KEY_BYTES} bytes once escaped`);
  }
  return encoded;
}

/** Whether `c`, after `before` (undefined at the start), is escaped. */
function mustEscape(c: string, before: string | undefined): boolean {
  if (ALWAYS_ESCAPED.test(c)) return true;
  if (c === ".") return before === undefined || before === "/";
  return c === "/" && before === ".";
}

function percent(c: string): string {
  const code = c.charCodeAt(0);
  return code < 0x80 ? `%${code.toString(16).toUpperCase().padStart(2, "0")}` : encodeURIComponent(c);
}
