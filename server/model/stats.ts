/**
 * What the document as a whole says about its text, measured once when it is opened (pdf/open.ts)
 * and read by layout on every page: the body size and the heading sizes.
 */

/** Font-size statistics over a sample of the document's pages (text only, cheap). */
export interface DocStats {
  /** Most common font size, weighted by characters. */
  bodySize: number;
  /** Distinct sizes clearly larger than the body, largest first (rounded to 0.5 pt). */
  headingSizes: number[];
  /** Size of the document title: the largest text near the top of page 1, used nowhere else. */
  titleSize?: number;
}
