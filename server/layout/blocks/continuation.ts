/**
 * Paragraph continuation across a column or band break (issue 15): the text goes on when the
 * first part does not end a sentence and the second starts in lower case, in the same font size;
 * a word hyphenated across the break is joined by `joinLines`. A next part that starts with a
 * capital is left apart: side-by-side table cells that no rule encloses look the same.
 */
import type { Block } from './index';
import { blockFontSize } from './classify';

const SENTENCE_END = /[.!?:;]["'”’)\]]*$/u;

/** Whether the text of a paragraph that broke off continues in `next`. */
export function textContinues(prevText: string, nextText: string): boolean {
  const a = prevText.trimEnd();
  const b = nextText.trimStart();
  if (!a || !b || SENTENCE_END.test(a)) return false;
  return /^\p{Ll}/u.test(b);
}

export function continuesParagraph(prev: Block, next: Block, prevText: string, nextText: string): boolean {
  if (Math.abs(blockFontSize(prev) - blockFontSize(next)) > 0.6) return false;
  // A list item may go on in the next column; nothing goes on into a new item.
  if (next.marker) return false;
  return textContinues(prevText, nextText);
}
