// Reads the TOML that a `fastly.toml` manifest uses: tables (`[a.b]`), dotted and quoted keys,
// strings, integers, booleans, arrays and inline tables. Anything else (dates, floats, `[[x]]`,
// multi-line strings) is refused loudly rather than misread.

export type TomlValue = string | number | boolean | TomlValue[] | TomlTable;
export interface TomlTable {
  [key: string]: TomlValue;
}

export function parseToml(text: string): TomlTable {
  return new TomlReader(text).document();
}

const BARE_KEY = /[A-Za-z0-9_-]/;
const ESCAPES: Record<string, string> = { b: "\b", t: "\t", n: "\n", f: "\f", r: "\r", '"': '"', "\\": "\\" };

class TomlReader {
  private at = 0;

  constructor(private readonly text: string) {}

  document(): TomlTable {
    const root: TomlTable = {};
    let table = root;
    for (this.skip(true); this.at < this.text.length; this.skip(true)) {
      if (this.peek() === "[") {
        if (this.text.startsWith("[[", this.at)) this.error("arrays of tables are not supported");
        this.at++;
        table = this.descend(root, this.keyPath(), true);
        this.expect("]");
      } else {
        const path = this.keyPath();
        this.expect("=");
        this.assign(table, path, this.value());
      }
      this.endOfLine();
    }
    return root;
  }

  private keyPath(): string[] {
    const path = [this.key()];
    while (this.skip(), this.peek() === ".") {
      this.at++;
      path.push(this.key());
    }
    return path;
  }

  private key(): string {
    this.skip();
    const c = this.peek();
    if (c === '"' || c === "'") return this.string();
    const start = this.at;
    while (this.at < this.text.length && BARE_KEY.test(this.peek())) this.at++;
    if (start === this.at) this.error("expected a key");
    return this.text.slice(start, this.at);
  }

  private value(): TomlValue {
    this.skip();
    const c = this.peek();
    if (c === '"' || c === "'") return this.string();
    if (c === "[") return this.array();
    if (c === "{") return this.inlineTable();
    const word = /^(true|false|[+-]?\d[\d_]*)(?=[\s,\]}#]|$)/.exec(this.text.slice(this.at));
    if (!word) this.error("unsupported value");
    this.at += word![0].length;
    return word![0] === "true" ? true : word![0] === "false" ? false : Number(word![0].replaceAll("_", ""));
  }

  private string(): string {
    const quote = this.text[this.at++];
    if (this.text.startsWith(quote!.repeat(2), this.at)) this.error("multi-line strings are not supported");
    let out = "";
    for (;;) {
      const c = this.text[this.at++];
      if (c === undefined || c === "\n") this.error("unterminated string");
      if (c === quote) return out;
      if (c === "\\" && quote === '"') out += this.escape();
      else out += c;
    }
  }

  private escape(): string {
    const c = this.text[this.at++]!;
    if (c in ESCAPES) return ESCAPES[c]!;
    const hex = c === "u" ? 4 : c === "U" ? 8 : 0;
    if (!hex) this.error(`unknown escape \\${c}`);
    const code = Number.parseInt(this.text.slice(this.at, this.at + hex), 16);
    this.at += hex;
    return String.fromCodePoint(code);
  }

  private array(): TomlValue[] {
    this.at++;
    const items: TomlValue[] = [];
    for (this.skip(true); this.peek() !== "]"; this.skip(true)) {
      items.push(this.value());
      this.skip(true);
      if (this.peek() === ",") this.at++;
      else if (this.peek() !== "]") this.error("expected , or ]");
    }
    this.at++;
    return items;
  }

  private inlineTable(): TomlTable {
    this.at++;
    const table: TomlTable = {};
    for (this.skip(); this.peek() !== "}"; this.skip()) {
      const path = this.keyPath();
      this.expect("=");
      this.assign(table, path, this.value());
      this.skip();
      if (this.peek() === ",") this.at++;
      else if (this.peek() !== "}") this.error("expected , or }");
    }
    this.at++;
    return table;
  }

  private assign(table: TomlTable, path: string[], value: TomlValue): void {
    const parent = this.descend(table, path.slice(0, -1), false);
    const name = path.at(-1)!;
    if (name in parent) this.error(`duplicate key ${path.join(".")}`);
    parent[name] = value;
  }

  private descend(table: TomlTable, path: string[], header: boolean): TomlTable {
    let current = table;
    for (const name of path) {
      const next = (current[name] ??= {});
      if (typeof next !== "object" || Array.isArray(next)) this.error(`${name} is not a table`);
      current = next as TomlTable;
    }
    if (header && path.length === 0) this.error("empty table name");
    return current;
  }

  /** Skips spaces and comments; with `lines`, newlines too. */
  private skip(lines = false): void {
    for (;;) {
      const c = this.peek();
      if (c === " " || c === "\t" || (lines && (c === "\n" || c === "\r"))) this.at++;
      else if (c === "#") while (this.at < this.text.length && this.peek() !== "\n") this.at++;
      else return;
    }
  }

  private endOfLine(): void {
    this.skip();
    if (this.at < this.text.length && this.peek() !== "\n" && this.peek() !== "\r") this.error("expected end of line");
  }

  private expect(c: string): void {
    this.skip();
    if (this.peek() !== c) this.error(`expected ${c}`);
    this.at++;
  }

  private peek(): string {
    return this.text[this.at] ?? "";
  }

  private error(message: string): never {
    const line = this.text.slice(0, this.at).split("\n").length;
    throw new SyntaxError(`fastly.toml line ${line}: ${message}`);
  }
}
