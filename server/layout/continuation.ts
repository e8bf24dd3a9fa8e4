/**
 * Paragraph continuation across a column or band break (issue 15): the text goes on when the
 * first part does not end a sentence and the second starts with a letter (across pages, only in
 * lower case: pages end on captions and labels too), in the same font size; a word hyphenated
 * across the break is joined by `joinLines`.
 */
import type { Block } from './blocks';
import { blockFontSize } from './classify';

const SENTENCE_END = /[.!?:;]["'”’)\]]*$/u;

/** Whether the text of a paragraph that broke off continues in `next`. */
export function textContinues(prevText: string, nextText: string): boolean {
  const a = prevText.trimEnd();
  const b = nextText.trimStart();
  if (!a || !b || SENTENCE_END.test(a)) return false;
  return /^\p{Ll}/u.test(b);
}

/**
 * Inside a page the break is known to be a column or band break, and the font size matches: a
 * part that stops without ending its sentence goes on whatever the case of the next word.
 */
function inPageContinues(prevText: string, nextText: string): boolean {
  const a = prevText.trimEnd();
  return a.length > 0 && !SENTENCE_END.test(a) && /^\p{L}/u.test(nextText.trimStart());
}

export function continuesParagraph(prev: Block, next: Block, prevText: string, nextText: string): boolean {
  if (Math.abs(blockFontSize(prev) - blockFontSize(next)) > 0.6) return false;
  // A list item may go on in the next column; nothing goes on into a new item.
  if (next.marker) return false;
  return inPageContinues(prevText, nextText);
}
