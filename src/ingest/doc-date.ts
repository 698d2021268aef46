/**
 * A document's own date, from its file's properties (for date filters: "the reports from 2023"): a PDF's
 * info dictionary (ModDate, else CreationDate, written "D:YYYYMMDDHHmmSS+HH'mm'") or a Word file's core
 * properties (`dcterms:modified`, else `dcterms:created`, ISO 8601). Dates before 1980 or more than a day
 * ahead of now are a tool's placeholder or a wrong clock, and are ignored.
 */

const PDF_DATE = /^(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(?:([+-])(\d{2})'?(\d{2})?)?/u;
const EARLIEST = Date.UTC(1980, 0, 1);

function plausible(at: number, now: number): number | undefined {
  return Number.isFinite(at) && at >= EARLIEST && at <= now + 86_400_000 ? at : undefined;
}

/** A PDF date string ("D:20230115093000+01'00'") in ms since the epoch, or undefined. */
export function parsePdfDate(text: unknown, now = Date.now()): number | undefined {
  if (typeof text !== 'string') return undefined;
  const m = PDF_DATE.exec(text.trim());
  if (!m) return undefined;
  const n = (i: number, fallback: number) => (m[i] ? Number(m[i]) : fallback);
  const month = n(2, 1);
  const day = n(3, 1);
  if (month < 1 || month > 12 || day < 1 || day > 31) return undefined;
  const offset = m[7] ? (m[7] === '-' ? -1 : 1) * (n(8, 0) * 60 + n(9, 0)) * 60_000 : 0;
  return plausible(Date.UTC(n(1, 0), month - 1, day, n(4, 0), n(5, 0), n(6, 0)) - offset, now);
}

/** An ISO 8601 date ("2023-01-15T09:30:00Z") in ms since the epoch, or undefined. */
export function parseIsoDate(text: string | undefined, now = Date.now()): number | undefined {
  return text ? plausible(Date.parse(text.trim()), now) : undefined;
}

/** The first of `dates` that is one (the modified date, else the created). */
export function firstDate(...dates: Array<number | undefined>): number | undefined {
  return dates.find((d) => d !== undefined);
}
