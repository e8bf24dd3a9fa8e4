/**
 * A run of drawn text and why a reader may not see it: what hiddenText.ts finds and
 * invisibleText.ts reads. Its own file so that those two do not import each other.
 */
import type { BBox } from '../../common/protocol';

export type HiddenReason = 'invisible' | 'transparent' | 'squeezed' | 'clipped' | 'background' | 'covered';

export interface TextRun {
  /** Letters of the run (matchKey): what the text content's items are matched on. */
  key: string;
  /** The run's characters as drawn. */
  text: string;
  /** Box on the displayed page (points, top-left origin). */
  bbox: BBox;
  /** Why a reader cannot see it; absent when they can (or when it cannot be told). */
  hidden?: HiddenReason;
  /** For `background`: the two colours were white (for the warning's "white on white"). */
  white?: boolean;
}
