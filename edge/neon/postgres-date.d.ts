// postgres-date 1.0.7 ships no types.
declare module "postgres-date" {
  /** A Date (local time when the text has no zone), ±Infinity for ±infinity, null for other text. */
  export default function parseDate(text: string): Date | number | null;
}
