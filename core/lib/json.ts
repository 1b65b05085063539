/** `text` parsed as JSON, or undefined when it is not JSON (a store's entry may be anything). */
export function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
