/**
 * A text line as the table finder sees it (`align.ts`), cut into runs separated by gaps that may
 * be cell borders; `narrowCols.ts` cuts those runs again at column gaps. One declaration for both.
 */

/** One run of a line: its x extent, the spans it holds and what kind of text it is. */
export interface Piece {
  x0: number;
  x1: number;
  spans: number[];
  chars: number;
  /** Letters and digits in the run. */
  alnum: number;
  /** The run is a number (a one-digit cell is still a cell). */
  numeric: boolean;
  /** The run starts with a list marker (•, –, 1., a)). */
  marker: boolean;
}

/** A line's box, its font size and its runs. */
export interface RunLine {
  y0: number;
  y1: number;
  size: number;
  pieces: Piece[];
}
