/**
 * A text line: spans of one row, joined. Its own module so that lines/index.ts (which builds lines)
 * and justifiedOcr.ts (which merges them, and is called by it) both import it without a circle.
 */
import type { BBox } from '../../../common/protocol';
import type { TextSpan } from '../../model/content';

export interface Line {
  spans: TextSpan[];
  bbox: BBox;
  text: string;
  /** Dominant font size (by characters). */
  fontSize: number;
  bold: boolean;
  italic: boolean;
  monospace: boolean;
  /** Share of characters in math fonts or math symbols. */
  mathRatio: number;
  rtl: boolean;
  /** x where the text after a list marker starts (for continuation-line alignment). */
  x0: number;
  /** Another short line sits on the same row: a table cell or a form label, not a heading. */
  inRow?: boolean;
}
