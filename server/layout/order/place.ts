/**
 * Where a line stands on the page: in the body (in one XY-cut column) or in a furniture band.
 * Lines in different places never share a block or a paragraph.
 */

/** `header`/`footer`: the furniture bands at the top and bottom; `margin`: text turned up a side margin. */
export type Band = 'body' | 'header' | 'footer' | 'margin';

export interface Place {
  band: Band;
  /** XY-cut path of the body column (`xycut.ts`); '' in the furniture bands. */
  column: string;
  /** A line turned off the horizontal, or any margin line, is a place of its own: its number on the page. */
  rotated?: number;
  /** A side note (order/sideNotes.ts): a block of its own that no body paragraph runs into or out of. */
  aside?: boolean;
}

export function samePlace(a: Place, b: Place): boolean {
  return a.band === b.band && a.column === b.column && a.rotated === b.rotated;
}

/** Header, footer and margin text never continue the body's paragraphs. */
export function inFurnitureBand(p: Place): boolean {
  return p.band !== 'body';
}

/** Body paragraphs are joined across a column break, never into or out of a side note. */
export function joinsAcross(p: Place): boolean {
  return !inFurnitureBand(p) && !p.aside;
}
