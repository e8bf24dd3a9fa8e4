/**
 * Captions: the patterns that say a line opens a caption, and the stage that nests each caption
 * in its picture or table (Docling nests them). One module for every caption pattern, so the
 * block builder, the classifier and the table finder agree on what a caption is.
 */
import type { DocItem } from '../../model/items';

/** "Figure 3.", "Fig. 2:", "Table IV –", "Listing 1": a float's caption starts here. */
const CAPTION_START =
  /^(figure|fig\.?|table|tab\.|listing|chart|scheme|plate|algorithm|exhibit)\s*[0-9IVX]+[A-Za-z]?(\s*[.:\-–—|]|\s|$)/i;
/** A caption that names a table ("Table", "Tab."), numbered or not: it prefers a table to a picture. */
const NAMES_TABLE = /^(table|tab\.)/i;
/** A numbered table caption ("Table 2", "Tab. IV"): where a table found by its rules stops. */
const TABLE_CAPTION_START = /^(table|tab\.)\s*[0-9IVX]+/i;
/** A numbered table caption followed by its separator ("Table 2:", "Table 2."): a caption line, not a cell. */
const TABLE_CAPTION_LINE = /^(table|tab\.)\s*[0-9IVX]+[.:]/i;
/** A numbered figure caption followed by its separator ("Figure 2.", "Fig. 3:"). */
const FIGURE_CAPTION_LINE = /^(figure|fig\.)\s*[0-9IVX]+[.:]/i;

export function isCaptionStart(text: string): boolean {
  return CAPTION_START.test(text);
}

export function namesTable(text: string): boolean {
  return NAMES_TABLE.test(text);
}

export function isTableCaptionStart(text: string): boolean {
  return TABLE_CAPTION_START.test(text);
}

export function isTableCaptionLine(text: string): boolean {
  return TABLE_CAPTION_LINE.test(text);
}

/** A numbered table or figure caption with its separator ("Table 1:", "Fig. 2."). */
export function isFloatCaptionLine(text: string): boolean {
  return TABLE_CAPTION_LINE.test(text) || FIGURE_CAPTION_LINE.test(text);
}

/** How far (points) a caption may sit from its float: a little overlap to a few lines away. */
const CAPTION_MAX_OVERLAP = 5;
const CAPTION_MAX_DISTANCE = 60;
/** Extra distance charged when the caption's word does not match the float ("Table" under a picture). */
const CAPTION_KIND_PENALTY = 30;

/**
 * Moves each caption into the nearest picture or table above or below it. Pairs are taken from
 * the closest (kind penalty included) down, so a "TABLE II." caption right above its table wins
 * it over a "FIG. 2." caption a few lines higher whose own figure was not found (REVTeX's
 * "Wide Test Figure" frame); the figure caption then stays a caption in its place.
 */
export function attachCaptions(items: DocItem[]): DocItem[] {
  const pairs: { d: number; ci: number; ti: number }[] = [];
  items.forEach((c, ci) => {
    if (c.cls !== 'caption' || !c.bbox) return;
    const wantTable = namesTable(c.text);
    items.forEach((t, ti) => {
      if ((t.cls !== 'picture' && t.cls !== 'table') || t.caption || !t.bbox) return;
      const overlapX = Math.min(c.bbox!.x1, t.bbox.x1) - Math.max(c.bbox!.x0, t.bbox.x0);
      if (overlapX <= 0) return;
      const d = c.bbox!.y0 >= t.bbox.y1 ? c.bbox!.y0 - t.bbox.y1 : t.bbox.y0 - c.bbox!.y1;
      const penalty = (t.cls === 'table') === wantTable ? 0 : CAPTION_KIND_PENALTY;
      if (d > -CAPTION_MAX_OVERLAP && d < CAPTION_MAX_DISTANCE) pairs.push({ d: d + penalty, ci, ti });
    });
  });
  // Stable sort: equal distances keep the page order the one-by-one pass had.
  pairs.sort((x, y) => x.d - y.d);
  const taken = new Set<number>();
  const captioned = new Set<number>();
  for (const { ci, ti } of pairs) {
    if (taken.has(ci) || captioned.has(ti)) continue;
    items[ti].caption = items[ci];
    taken.add(ci);
    captioned.add(ti);
  }
  return items.filter((_, i) => !taken.has(i));
}
