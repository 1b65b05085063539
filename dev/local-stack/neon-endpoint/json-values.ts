// Postgres text → the JSON values Neon answers when the raw-text header is absent.

// Without Neon-Raw-Text-Output: true, Neon types a few values in JSON (Neon's clients never ask).
const ARRAY_ELEMENT: Record<number, number> = {
  1000: 16,
  1005: 21,
  1007: 23,
  1021: 700,
  1022: 701,
  199: 114,
  3807: 3802,
  1009: 25,
  1015: 1043,
  1016: 20,
  1231: 1700,
  1185: 1184,
  1115: 1114,
  1182: 1082,
  2951: 2950,
  1014: 1042,
  1028: 26,
};

export function pgTextToJson(text: string, oid: number): unknown {
  const element = ARRAY_ELEMENT[oid];
  if (element !== undefined) return parsePgArray(text, element);
  switch (oid) {
    case 16:
      return text === "t";
    case 21:
    case 23:
      return Number(text);
    case 700:
    case 701:
      return Number.isFinite(Number(text)) ? Number(text) : text; // NaN, Infinity stay text
    case 114:
    case 3802:
      return JSON.parse(text);
    default:
      return text; // int8 and numeric too: JSON numbers would lose precision
  }
}

/** `{1,2}`, `{{"a b",NULL}}`, `[0:1]={x,y}` → nested JSON arrays of typed elements. */
function parsePgArray(text: string, element: number): unknown[] {
  let i = text.startsWith("[") ? text.indexOf("=") + 1 : 0; // bounds decoration has no JSON form
  const list = (): unknown[] => {
    const out: unknown[] = [];
    i++; // "{"
    if (text[i] === "}") {
      i++;
      return out;
    }
    while (i < text.length) {
      if (text[i] === "{") out.push(list());
      else if (text[i] === '"') {
        let item = "";
        for (i++; i < text.length && text[i] !== '"'; i++) item += (text[i] === "\\" ? text[++i] : text[i]) ?? "";
        i++;
        out.push(pgTextToJson(item, element));
      } else {
        let end = i;
        while (end < text.length && text[end] !== "," && text[end] !== "}") end++;
        const item = text.slice(i, end).trim();
        i = end;
        out.push(item === "NULL" ? null : pgTextToJson(item, element));
      }
      if (text[i++] === "}") break;
    }
    return out;
  };
  return list();
}
