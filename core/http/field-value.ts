// RFC 9110 §5.5: the spaces and tabs around a field value are not part of it. Node, Deno and
// Viceroy drop them before the app sees a request; workerd hands them over, so `Origin: x ` or
// `Authorization: Bearer t<TAB>` would mean something else there. Every request header core reads
// is read here, and a request means the same on every runtime.
const SPACES_AROUND = /^[ \t]+|[ \t]+$/g;

/** `text` without the spaces and tabs at either end (only those: RFC 9110's OWS). */
export const withoutSpacesAround = (text: string): string => text.replace(SPACES_AROUND, "");

/** A request header's value as RFC 9110 defines it; undefined when the header is absent. */
export function fieldValue(headers: Pick<Headers, "get">, name: string): string | undefined {
  const value = headers.get(name);
  return value === null ? undefined : withoutSpacesAround(value);
}
