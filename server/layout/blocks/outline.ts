/**
 * Outline numbering (issue 31, heading levels). REVTeX, AIAA and IEEE papers number their
 * sections as an outline: "I. INTRODUCTION", under it "A. Background", under that "1. Detail",
 * run-in "a. Note"; appendixes "Appendix A: …". The label's kind says the rank only together with
 * what came before it: "1." under "A." is a third-level head, "5. Conclusion" before "A. Proofs"
 * a first-level one. REVTeX sets these heads a size under the body (9 pt bold over 10 pt), so
 * size and weight alone do not make them headings; the label, the weight and a line of their own do.
 */
import type { Block } from './index';
import { inFurnitureBand } from '../order/place';

/** The kind of section label a heading starts with. */
export type OutlineKind = 'roman' | 'letter' | 'arabic' | 'decimal' | 'appendix';

/** "Appendix A: Background", "Appendix B", "Annex 2 …": a label that ranks with the sections. */
const APPENDIX_RE = /^\s*(?:appendix|annex|anhang)\s+(?:[A-Z]|\d{1,2}|[IVX]{1,4})\b(?:\s*[:.]\s*\S|\s*$|\s+\S)/iu;

/** A name with initials: "B. Reader", "J.-P. Serre", "A. B. van der Writer". */
const INITIALS_NAME = String.raw`(?:\p{Lu}\.\s*-?\s*)+(?:\p{Ll}{1,3}\s+)*\p{Lu}[\p{Ll}'’-]+[*†‡§¶\d]*`;
/**
 * A by-line set like a head ("A. Writer and B. Reader", "A. Writer, B. Reader", "A. B. Writer"):
 * an initial, a surname, and another initial after "and" or a comma, or two initials before the
 * surname. Its "A." is no outline label. "A. Methods and Results" names no second initial and stays one.
 */
const BYLINE_RE = new RegExp(
  String.raw`^\s*(?:\p{Lu}\.\s*\p{Lu}\.\s*\p{Lu}\p{Ll}|${INITIALS_NAME}(?:\s*(?:,|,?\s+(?:and|&|und|et))\s+${INITIALS_NAME})+\s*$)`,
  'u',
);

export function outlineKind(text: string): OutlineKind | undefined {
  if (/^\s*[IVX]{1,5}\.\s+\S/.test(text)) return 'roman';
  if (/^\s*[A-H]\.\s+\S/.test(text)) return BYLINE_RE.test(text) ? undefined : 'letter';
  if (/^\s*\d{1,2}\.?\s+\p{L}/u.test(text)) return 'arabic';
  if (/^\s*\d{1,2}(?:\.\d{1,2})+\.?\s+\S/.test(text)) return 'decimal';
  if (APPENDIX_RE.test(text)) return 'appendix';
  return undefined;
}

/** An outline head may be set this much smaller than the body (REVTeX: 9 pt heads over 10 pt). */
const OUTLINE_MIN_SIZE = 0.8;
/** …and is short: a label and a few words, at most two lines. */
const OUTLINE_MAX_CHARS = 120;
const OUTLINE_MAX_WORDS = 16;
/** An italic head (REVTeX's and AIAA's third level, "1. Detail") is one short line. */
const ITALIC_OUTLINE_MAX_CHARS = 60;

/** Every span with letters is italic and none bold: the line is set in italics from end to end. */
export function wholeLineItalic(b: Pick<Block, 'lines'>): boolean {
  return b.lines.every((l) => l.spans.every((s) => !/\p{L}/u.test(s.text) || (s.italic === true && s.bold !== true)));
}

/**
 * A section head that carries an outline label and stands on its own: bold (one or two lines,
 * "I. FIRST-LEVEL HEADING: THE LINE BREAK WAS FORCED via \\"), or one whole line in italics
 * ("1. Detail"), set down to 0.8 of the body size, no sentence end, no math. A run-in
 * head ("a. Note (…) The width-") goes on in upright text on its line and is no head of its own.
 */
export function outlineHeadBlock(b: Block, text: string, size: number, body: number): boolean {
  const lines = b.lines;
  if (!outlineKind(text) || lines.length > 2) return false;
  if (size < body * OUTLINE_MIN_SIZE || size > body * 1.1) return false;
  if (text.length > OUTLINE_MAX_CHARS || text.split(/\s+/).length > OUTLINE_MAX_WORDS) return false;
  if (/[.,;:!?]$/.test(text) || (text.match(/\p{L}/gu) ?? []).length < 3) return false;
  if (lines.some((l) => l.monospace || l.mathRatio > 0.2)) return false;
  // Bold heads of both columns may stand level with each other (REVTeX's "I. FIRST-LEVEL
  // HEADING" beside "A. Second-level heading"): a labelled bold line keeps its row mate.
  // In the header band a row mate is the page number beside a running head.
  if (lines.some((l) => l.inRow) && inFurnitureBand(b.place)) return false;
  if (lines.every((l) => l.bold)) return true;
  if (lines.some((l) => l.inRow)) return false;
  return lines.length === 1 && text.length <= ITALIC_OUTLINE_MAX_CHARS && wholeLineItalic(b);
}

/** What the nesting pass needs of a classified block. */
export interface OutlineItem {
  cls: string;
  text: string;
  level?: number;
  block: Pick<Block, 'lines'>;
}

/**
 * Nests arabic-numbered heads under the outline head before them on the page: "1. Detail" after
 * "A. Background" (level 2) is level 3; after "I. Introduction" or "Appendix B" one under those. A
 * page that starts inside a subsection (REVTeX's page 2 opens with "2. Example citations") has no
 * head above it to read; there an arabic head set in italics at or under the body size — the
 * outline's third-level style, under bold section and subsection heads — is level 3.
 */
export function nestOutline(items: OutlineItem[], body: number, sizeOf: (b: Pick<Block, 'lines'>) => number): void {
  let parent: number | undefined;
  for (const c of items) {
    if (c.cls !== 'section_header' || c.level === undefined) continue;
    const kind = outlineKind(c.text);
    if (kind === 'roman' || kind === 'letter' || kind === 'appendix') parent = c.level;
    else if (kind === 'arabic') {
      if (parent !== undefined) c.level = Math.min(6, parent + 1);
      else if (wholeLineItalic(c.block) && sizeOf(c.block) <= body + 0.25) c.level = 3;
    } else if (kind === 'decimal') parent = undefined;
  }
}
