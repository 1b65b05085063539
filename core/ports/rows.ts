// Turning database values into the API's JSON shapes, whatever form the SQL port parsed them to.

/** timestamptz arrives as a Date (Neon's parsers) or as text: answered as ISO 8601 either way. */
export function toIsoTimestamp(value: unknown): string {
  const date = value instanceof Date ? value : new Date(String(value));
  if (Number.isNaN(date.getTime())) throw new Error(`${String(value)} is not a timestamp`);
  return date.toISOString();
}
