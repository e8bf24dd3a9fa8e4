/**
 * Reading an error without reading its words: `kindOf` turns anything thrown — a `FolioError`, a
 * JSON-RPC `ResponseError` the extension got back, an abort — into an `ErrorKind`, and `messageOf`
 * gives its sentence for people. Shared by the backend and the extension (src/ may import this
 * module and protocol.ts, nothing else of server/), so it imports only the protocol.
 */
import { ERROR_KIND_CODES, type ConvertSummary, type ErrorKind, type PageError } from './protocol';

const KIND_BY_CODE = new Map<number, ErrorKind>(
  Object.entries(ERROR_KIND_CODES).map(([kind, code]) => [code, kind as ErrorKind]),
);

/** The kind of a `FolioErrorCodes` code; a code Folio does not define is `internal`. */
export function kindOfCode(code: unknown): ErrorKind {
  return (typeof code === 'number' && KIND_BY_CODE.get(code)) || 'internal';
}

/**
 * The kind of anything thrown. A numeric `code` (FolioError, ResponseError) decides; an abort
 * (`AbortError` from a fetch or a signal's reason) is `cancelled`; anything else is `internal`.
 */
export function kindOf(e: unknown): ErrorKind {
  if (typeof e !== 'object' || e === null) return 'internal';
  const { code, name } = e as { code?: unknown; name?: unknown };
  // First: a DOMException's `code` is its own legacy number (20 for an abort), not ours.
  if (name === 'AbortError') return 'cancelled';
  if (typeof code === 'number') return kindOfCode(code);
  return 'internal';
}

/** The sentence of anything thrown (an Error's message, else its string form). */
export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** What every surface says when a document had no page converted. */
export const NOTHING_CONVERTED = 'no page could be converted';

/**
 * A conversion where pages failed and none converted: the first page's error as the document's
 * (its kind, and one sentence), for every surface that then writes nothing. Undefined otherwise.
 */
export function nothingConverted(summary: Pick<ConvertSummary, 'pagesDone' | 'pageErrors'>): PageError | undefined {
  const first = summary.pageErrors[0];
  if (summary.pagesDone.length > 0 || !first) return undefined;
  return { ...first, message: `${NOTHING_CONVERTED} (${first.message})` };
}
