/**
 * Which heading-like blocks are headings, and which one is the title (issue 31, heading levels),
 * judged on the page alone as a reader does when the document's statistics say nothing:
 *
 * - a page's title set only 1.2× the body (REVTeX: 12 pt over 10 pt) is still its title when it is
 *   the page's largest text, centred at the top;
 * - a heading broken over two blocks (a 25 pt head over two lines that the layout cut apart, a
 *   title whose second line sits beside the authors' column) is one heading;
 * - a line that opens in lower case is no section heading, nor is a line set flush right alone,
 *   nor a sentence set a little larger than the body, nor a logo's letters with small words beside.
 */
import type { Block } from './index';
import type { PageInfo } from './pageInfo';
import { headingNumberDepth } from './markers';
import { outlineKind } from './outline';

/** A lone page's title is at least this much larger than the body… */
const LONE_TITLE_MIN_BODY_RATIO = 1.15;
/** …its middle within this share of the page width of the page's middle… */
const LONE_TITLE_CENTRE_SHARE = 0.04;
/** …and it starts in this top share of the page. */
const LONE_TITLE_TOP_SHARE = 0.3;

/**
 * The title of a first page whose statistics found none (pdf/open.ts asks 1.25× the body for a
 * centred title): larger than the body, the largest text with letters on the page, centred, near
 * the top, several words.
 */
export function loneTitleBlock(
  b: Block,
  size: number,
  blocks: Block[],
  info: PageInfo,
  sizeOf: (b: Block) => number,
): boolean {
  const body = info.stats.bodySize;
  if (size < body * LONE_TITLE_MIN_BODY_RATIO || size - body < 1) return false;
  if (b.bbox.y0 > info.height * LONE_TITLE_TOP_SHARE) return false;
  const text = b.lines.map((l) => l.text).join(' ');
  if (text.trim().split(/\s+/).length < 2) return false;
  const mid = (b.bbox.x0 + b.bbox.x1) / 2;
  if (Math.abs(mid - info.width / 2) > info.width * LONE_TITLE_CENTRE_SHARE) return false;
  const largest = Math.max(
    ...blocks.filter((o) => /\p{L}.*\p{L}/u.test(o.lines.map((l) => l.text).join(' '))).map(sizeOf),
  );
  return size >= largest - 0.3;
}

/** Small-caps fonts give their small capitals as lower case letters. */
const SMALL_CAPS_FONT_RE = /cmcsc|caps|smcp|[-a-z\d]sc$/i;
/** Display type far above the body may be set in lower case on purpose ("about us"). */
const LOWERCASE_MAX_BODY_RATIO = 1.5;

/** The block opens with a word in lower case (no capital in it), in the body's neighbourhood of sizes. */
export function lowercaseOpening(b: Block, text: string, size: number, body: number): boolean {
  if (size >= body * LOWERCASE_MAX_BODY_RATIO) return false;
  const m = /^\s*["“‘(]?(\S+)/u.exec(text);
  if (!m || !/^\p{Ll}/u.test(m[1]) || /\p{Lu}/u.test(m[1])) return false;
  const first = b.lines[0]?.spans.find((s) => /\p{L}/u.test(s.text));
  return !(first && SMALL_CAPS_FONT_RE.test(first.fontName));
}

/** What joining needs of a classified block. */
export interface HeadingPart {
  block: Block;
  cls: string;
  text: string;
  absorbed?: boolean;
  joined?: Block[];
}

/** A heading's next line sits at most this many font sizes under it… */
const JOIN_MAX_GAP = 0.8;
/** …among the few blocks after it in reading order (a column of author lines may come between)… */
const JOIN_LOOK_BACK = 4;
/** …and the joined heading stays this short. */
const JOIN_MAX_LINES = 4;

function mainFont(b: Block): string {
  return b.lines[0]?.spans.find((s) => /\p{L}/u.test(s.text))?.fontName ?? '';
}

/**
 * Joins a heading block to the heading right above it when both are set in one font and size, it
 * starts under the other within a line's gap, overlaps it across, and carries no section label of
 * its own: papertex's "This is the heading of a piece of news expanded" / "over three columns.", the
 * ASME title "Preprint Template for ASME" / "Journal Papers: asmejour.cls". The lower block is
 * marked absorbed; its text ends the upper one's.
 */
export function joinHeadingLines(items: HeadingPart[], sizeOf: (b: Block) => number): void {
  const heading = (c: HeadingPart) => (c.cls === 'title' || c.cls === 'section_header') && !c.absorbed;
  for (let i = 1; i < items.length; i++) {
    const c = items[i];
    if (!heading(c) || headingNumberDepth(c.text) !== undefined || outlineKind(c.text)) continue;
    const size = sizeOf(c.block);
    for (let j = i - 1; j >= Math.max(0, i - JOIN_LOOK_BACK); j--) {
      const p = items[j];
      if (!heading(p)) continue;
      const pb = p.block.bbox;
      const cb = c.block.bbox;
      const gap = cb.y0 - pb.y1;
      const overlap = Math.min(pb.x1, cb.x1) - Math.max(pb.x0, cb.x0);
      if (
        Math.abs(sizeOf(p.block) - size) < 0.3 &&
        mainFont(p.block) === mainFont(c.block) &&
        gap > -1 &&
        gap <= size * JOIN_MAX_GAP &&
        overlap > 0 &&
        p.block.lines.length + c.block.lines.length <= JOIN_MAX_LINES &&
        !/[.!?:]$/.test(p.text.trim())
      ) {
        p.text = /[-‐]$/.test(p.text) ? p.text + c.text : `${p.text} ${c.text}`;
        c.absorbed = true;
        p.joined = [...(p.joined ?? []), c.block];
        break;
      }
    }
  }
}

/** A flush-right line ends within this many points of the page's right text edge… */
const FLUSH_RIGHT_TOLERANCE = 3;
/** …and sits off the page's middle by more than this share of the page width. */
const OFF_CENTRE_SHARE = 0.1;

/**
 * A line set flush right on its own, starting where no paragraph starts: a judgment's party role
 * ("Plaintiff/Respondent"), a signature, a date. Headings are set flush left (at a column's left
 * edge, where paragraphs start too) or centred; a right column's heading starts at that column's
 * left edge.
 */
export function flushRightLabel(b: Block, blocks: Block[], pageWidth: number): boolean {
  if (b.lines.length !== 1) return false;
  const paragraphs = blocks.filter((o) => o.lines.length >= 2);
  if (!paragraphs.length) return false;
  const right = Math.max(...paragraphs.map((o) => o.bbox.x1));
  const { x0, x1 } = b.bbox;
  if (x1 < right - FLUSH_RIGHT_TOLERANCE || x0 < pageWidth / 2) return false;
  if (Math.abs((x0 + x1) / 2 - pageWidth / 2) <= pageWidth * OFF_CENTRE_SHARE) return false;
  return !paragraphs.some((o) => o.lines.some((l) => Math.abs(l.bbox.x0 - x0) < FLUSH_RIGHT_TOLERANCE));
}

/** A heading line holds fewer words than this… */
const SENTENCE_MIN_WORDS = 12;
/** …where it is set in regular weight less than this much over the body. */
const SENTENCE_MAX_BODY_RATIO = 1.3;

/**
 * A line of a dozen words or more in regular weight, a little larger than the body, is a
 * sentence: a newsletter's italic notice ("Traffic Volunteers for the week of October 27 – 31 are
 * parents from Room 15", 12 pt over 10 pt), a news page's standfirst. Bold and capitals are the
 * marks of a long heading; their absence is the mark of a sentence.
 */
export function sentenceLine(b: Block, size: number, body: number): boolean {
  if (size >= body * SENTENCE_MAX_BODY_RATIO || b.lines.some((l) => l.bold)) return false;
  const first = b.lines[0]?.text ?? '';
  if (!/\p{Ll}/u.test(first)) return false;
  return first.trim().split(/\s+/).length >= SENTENCE_MIN_WORDS;
}

/** Small words start at most this many of the big line's font sizes after it… */
const LOCKUP_MAX_GAP = 0.5;
/** …and are set at most this share of its size. */
const LOCKUP_MAX_SIZE_RATIO = 0.6;

/**
 * Big letters with small words right after them on their row, set well smaller: a logo's
 * lockup ("FLF" with "Flowfram" at its foot), not a heading. A heading stands alone on its row,
 * or with another column's line across a gutter.
 */
export function lockupLine(b: Block, size: number, blocks: Block[], sizeOf: (b: Block) => number): boolean {
  if (b.lines.length !== 1) return false;
  const { x1, y0, y1 } = b.bbox;
  return blocks.some((o) => {
    if (o === b) return false;
    const l = o.lines[0];
    if (!l || l.bbox.y0 >= y1 || l.bbox.y1 <= y0) return false;
    const gap = l.bbox.x0 - x1;
    return gap >= -1 && gap <= size * LOCKUP_MAX_GAP && sizeOf(o) <= size * LOCKUP_MAX_SIZE_RATIO;
  });
}
