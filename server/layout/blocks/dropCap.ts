/**
 * A drop cap (issue 40, class 3): a paragraph's first letter set two or three lines tall in the
 * margin of its first lines (LaTeX's lettrine, a magazine's initial). It is a line of its own to
 * the line builder, so it became a paragraph of one letter and the word it begins lost it
 * ("W" over "hen the last keeper left …"). What a reader sees: one capital, several times the
 * text's size, beside the top of its paragraph: the first line that starts right after it, its
 * middle within the capital's height, opens with the rest of the word. That letter opens that
 * line. The capital may rise above that line (lettrine's `lines=1`, `loversize`) but not start
 * below it; the rest of the word is lower case or, as lettrine sets it, in capitals ("E" beside
 * "N plein marais …", "J" beside "USTEMENT, à quelques …"). An opening mark set just before the
 * capital ("«") opens the line with it. A large letter over the text (a glossary's "A" heading its
 * entries) has no line starting beside it and stays.
 */
import type { BlockLine } from './index';

/** A drop cap is at least this many times the size of the line it opens… */
const MIN_SIZE_RATIO = 2;
/** …at least this many of that line's heights tall… */
const MIN_HEIGHT_RATIO = 1.5;
/** …its top at most this share of that line's height below the line's top… */
const TOP_TOLERANCE = 0.8;
/** …and that line starts at most this many of its font sizes right of it. */
const MAX_GAP_EMS = 2;
/** An opening mark ends at most this many of the text's font sizes left of the capital. */
const MARK_GAP_EMS = 1;
/** A mark further than this share of the text's size from the capital is set with a space. */
const MARK_SPACE_EMS = 0.1;

/** `run` with each drop cap joined to the start of the line it opens. */
export function joinDropCaps(run: BlockLine[]): BlockLine[] {
  const caps = new Map<BlockLine, BlockLine>();
  for (const cap of run) {
    if (!/^\p{Lu}$/u.test(cap.line.text.trim())) continue;
    // The topmost line beside the capital: it may rise above several.
    const opened = run
      .filter((o) => o !== cap && !caps.has(o) && beside(cap, o))
      .sort((a, b) => a.line.bbox.y0 - b.line.bbox.y0)[0];
    if (opened && opens(cap, opened)) caps.set(opened, cap);
  }
  if (!caps.size) return run;
  const taken = new Set(caps.values());
  const marks = new Map<BlockLine, BlockLine>();
  for (const [opened, cap] of caps) {
    const mark = run.find((m) => !taken.has(m) && !marks.has(opened) && markBefore(m, cap, opened));
    if (mark) {
      marks.set(opened, mark);
      taken.add(mark);
    }
  }
  return run
    .filter((b) => !taken.has(b))
    .map((b) => {
      const cap = caps.get(b);
      if (!cap) return b;
      const mark = marks.get(b);
      const c = cap.line;
      const l = b.line;
      const m = mark?.line;
      const bbox = {
        x0: Math.min(c.bbox.x0, l.bbox.x0, m?.bbox.x0 ?? Infinity),
        y0: l.bbox.y0,
        x1: Math.max(c.bbox.x1, l.bbox.x1),
        y1: l.bbox.y1,
      };
      const lead = m ? m.text.trim() + (c.bbox.x0 - m.bbox.x1 > MARK_SPACE_EMS * l.fontSize ? ' ' : '') : '';
      const line = {
        ...l,
        text: lead + c.text.trim() + l.text,
        spans: [...(m?.spans ?? []), ...c.spans, ...l.spans],
        bbox,
      };
      return { ...b, line, opensParagraph: true };
    });
}

/** `o` starts right of the capital, its middle within the capital's height. */
function beside(cap: BlockLine, o: BlockLine): boolean {
  const c = cap.line.bbox;
  const l = o.line.bbox;
  const mid = (l.y0 + l.y1) / 2;
  const gap = l.x0 - c.x1;
  return mid > c.y0 && mid < c.y1 && gap >= -1 && gap <= MAX_GAP_EMS * o.line.fontSize;
}

function opens(cap: BlockLine, o: BlockLine): boolean {
  const c = cap.line;
  const l = o.line;
  const h = l.bbox.y1 - l.bbox.y0;
  if (c.fontSize < MIN_SIZE_RATIO * l.fontSize || c.bbox.y1 - c.bbox.y0 < MIN_HEIGHT_RATIO * h) return false;
  if (c.bbox.y0 - l.bbox.y0 > TOP_TOLERANCE * h) return false;
  // The rest of the word: lower case, or capitals followed by more of the line.
  return /^\p{Ll}/u.test(l.text) || /^\p{Lu}+[\s,;:.’']+\S/u.test(l.text);
}

/** An opening quotation mark alone, just left of the capital and level with the line it opens. */
function markBefore(m: BlockLine, cap: BlockLine, opened: BlockLine): boolean {
  if (!/^[«‹“‘„"']$/u.test(m.line.text.trim())) return false;
  const b = m.line.bbox;
  const c = cap.line.bbox;
  const l = opened.line.bbox;
  const gap = c.x0 - b.x1;
  const mid = (b.y0 + b.y1) / 2;
  return gap >= -1 && gap <= MARK_GAP_EMS * opened.line.fontSize && mid > l.y0 && mid < l.y1;
}
