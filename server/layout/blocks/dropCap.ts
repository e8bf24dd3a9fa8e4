/**
 * A drop cap (issue 40, class 3): a paragraph's first letter set two or three lines tall in the
 * margin of its first lines (LaTeX's lettrine, a magazine's initial). It is a line of its own to
 * the line builder, so it became a paragraph of one letter and the word it begins lost it
 * ("W" over "hen the last keeper left …"). What a reader sees: one capital, several times the
 * text's size, whose top is level with a line that starts right after it. That letter opens that
 * line. A large letter over the text (a glossary's "A" heading its entries) has no line starting
 * beside its top and stays.
 */
import type { BlockLine } from './index';

/** A drop cap is at least this many times the size of the line it opens… */
const MIN_SIZE_RATIO = 2;
/** …at least this many of that line's heights tall… */
const MIN_HEIGHT_RATIO = 1.5;
/** …its top within this share of that line's height of the line's top… */
const TOP_TOLERANCE = 0.8;
/** …and that line starts at most this many of its font sizes right of it. */
const MAX_GAP_EMS = 2;

/** `run` with each drop cap joined to the start of the line it opens. */
export function joinDropCaps(run: BlockLine[]): BlockLine[] {
  const caps = new Map<BlockLine, BlockLine>();
  for (const cap of run) {
    if (!/^\p{Lu}$/u.test(cap.line.text.trim())) continue;
    const opened = run.find((o) => o !== cap && !caps.has(o) && opens(cap, o));
    if (opened) caps.set(opened, cap);
  }
  if (!caps.size) return run;
  const taken = new Set(caps.values());
  return run
    .filter((b) => !taken.has(b))
    .map((b) => {
      const cap = caps.get(b);
      if (!cap) return b;
      const c = cap.line;
      const l = b.line;
      const bbox = {
        x0: Math.min(c.bbox.x0, l.bbox.x0),
        y0: l.bbox.y0,
        x1: Math.max(c.bbox.x1, l.bbox.x1),
        y1: l.bbox.y1,
      };
      const line = { ...l, text: c.text.trim() + l.text, spans: [...c.spans, ...l.spans], bbox };
      return { ...b, line, opensParagraph: true };
    });
}

function opens(cap: BlockLine, o: BlockLine): boolean {
  const c = cap.line;
  const l = o.line;
  const h = l.bbox.y1 - l.bbox.y0;
  if (c.fontSize < MIN_SIZE_RATIO * l.fontSize || c.bbox.y1 - c.bbox.y0 < MIN_HEIGHT_RATIO * h) return false;
  if (Math.abs(c.bbox.y0 - l.bbox.y0) > TOP_TOLERANCE * h) return false;
  const gap = l.bbox.x0 - c.bbox.x1;
  return gap >= -1 && gap <= MAX_GAP_EMS * l.fontSize && /^\p{Ll}/u.test(l.text);
}
