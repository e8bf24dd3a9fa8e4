/**
 * Block → class (Docling's layout vocabulary) and text. Headings from font size and weight
 * against the document's body size, levels from the document's heading-size ranks or the
 * section numbering; lists from markers with nesting from indentation; code from monospace
 * fonts; formulas from math fonts and symbols; captions and footnotes from wording, size and place.
 */
import type { RegionClass } from '../../../common/protocol';
import type { DocStats } from '../../model/stats';
import type { Block } from './index';
import type { PageInfo } from './pageInfo';
import { headingNumberDepth } from './markers';
import { joinLines } from '../lines/normalize';
import { isCaptionStart } from './captions';
import { codePitch, gridLine } from './codeGrid';
import { pageProseSize, proseSized } from './pageProse';
import { nestOutline, outlineHeadBlock } from './outline';
import { rankNumberedBySize } from './numberRanks';
import { inFurnitureBand } from '../order/place';
import {
  flushRightLabel,
  joinHeadingLines,
  lockupLine,
  lowercaseOpening,
  loneTitleBlock,
  sentenceLine,
} from './headingRoles';

export interface Classified {
  block: Block;
  cls: RegionClass;
  text: string;
  level?: number;
  ordered?: boolean;
  /** The block's text went into the heading above it (a heading broken over two blocks). */
  absorbed?: boolean;
  /** Blocks whose text this heading took in: its box covers them too. */
  joined?: Block[];
}

export function blockFontSize(b: Pick<Block, 'lines'>): number {
  const sizes = new Map<number, number>();
  for (const l of b.lines) sizes.set(l.fontSize, (sizes.get(l.fontSize) ?? 0) + l.text.length);
  let best = 0;
  let n = -1;
  for (const [s, c] of sizes) if (c > n) [best, n] = [s, c];
  return best;
}

/** A code block's text, indentation rebuilt from the lines' left edges. */
export function codeText(b: Pick<Block, 'lines'>): string {
  const pitch = codePitch(b.lines);
  const charW = pitch ?? Math.max(1, blockFontSize(b) * 0.6);
  const left = Math.min(...b.lines.map((l) => l.bbox.x0));
  const out: string[] = [];
  let prevY: number | undefined;
  for (const l of b.lines) {
    const y = (l.bbox.y0 + l.bbox.y1) / 2;
    // Blank lines inside a code block show as a double pitch.
    if (prevY !== undefined && y - prevY > l.fontSize * 2.1) out.push('');
    prevY = y;
    // On a fixed pitch the line is rebuilt from its runs' columns (codeGrid.ts); otherwise the
    // text layer's text, indented by the line's left edge.
    const onGrid = pitch !== undefined && l.spans ? gridLine(l, left, pitch) : undefined;
    if (onGrid !== undefined) {
      out.push(onGrid);
      continue;
    }
    const indent = Math.max(0, Math.round((l.bbox.x0 - left) / charW));
    out.push(' '.repeat(indent) + l.text);
  }
  return out.join('\n');
}

/** Clearly larger than body text: at least 10% and a full point. */
export function largerThanBody(size: number, body: number): boolean {
  return size >= body * 1.1 && size - body >= 1;
}

export function levelForSize(size: number, stats: DocStats): number {
  const sizes = stats.headingSizes.filter((s) => !(stats.titleSize && s >= stats.titleSize - 0.25));
  let level = 1;
  for (const s of sizes) if (s > size + 0.6) level++;
  return Math.min(level, 6);
}

export function classify(blocks: Block[], info: PageInfo, vocabulary: Set<string>): Classified[] {
  const body = info.stats.bodySize;
  const out: Classified[] = [];
  const prose = pageProseSize(blocks, blockFontSize);
  for (const b of blocks) {
    const size = blockFontSize(b);
    const lines = b.lines;
    const mono = lines.filter((l) => l.monospace).length * 2 > lines.length;
    const allBold = lines.every((l) => l.bold);
    const rawText = joinLines(
      lines.map((l) => l.text),
      vocabulary,
    );
    const mathRatio = lines.reduce((a, l) => a + l.mathRatio * l.text.length, 0) / Math.max(1, rawText.length);
    if (mono) {
      out.push({ block: b, cls: 'code', text: codeText(b) });
      continue;
    }
    const text = rawText;
    const letters = (text.match(/\p{L}/gu) ?? []).length;
    if (isCaptionStart(text) && lines.length <= 6) {
      out.push({ block: b, cls: 'caption', text });
      continue;
    }
    // A label that ends in a colon at about the body size ("ACM Reference Format:", "Between:")
    // introduces what follows it; a heading names a section.
    const label = /:$/.test(text) && size < body * LABEL_MAX_BODY_RATIO;
    const headingLike =
      letters >= 2 &&
      lines.length <= 3 &&
      text.length <= 180 &&
      !/[,;]$/.test(text) &&
      !label &&
      ((largerThanBody(size, body) && !proseSized(b, size, prose)) ||
        (allBold && size >= body * 0.92 && text.length <= 120 && !/[.]$/.test(text) && !lines.some((l) => l.inRow)));
    // Italic run of a few capitalized words on its own line, body-sized: a minor heading.
    const italicHeading =
      !headingLike &&
      lines.length === 1 &&
      lines[0].italic &&
      !lines[0].inRow &&
      text.length <= 60 &&
      text.split(/\s+/).length <= 8 &&
      /^\p{Lu}/u.test(text) &&
      !/[.,;:!?)]$/.test(text) &&
      size >= body * 0.95 &&
      !largerThanBody(size, body);
    const capsHeading = !headingLike && !italicHeading && capsHeadingBlock(b, text, size, body, info);
    const outlineHead = !headingLike && !italicHeading && !capsHeading && outlineHeadBlock(b, text, size, body);
    if (headingLike || italicHeading || capsHeading || outlineHead) {
      const h = headingItem(b, text, size, { caps: capsHeading, outline: outlineHead, allBold }, out, blocks, info);
      if (h) {
        out.push(h);
        continue;
      }
    }
    if (b.marker) {
      const rest = joinLines([b.marker.rest, ...lines.slice(1).map((l) => l.text)], vocabulary);
      out.push({ block: b, cls: 'list_item', text: rest, ordered: b.marker.ordered });
      continue;
    }
    if (mathRatio >= 0.45 && lines.length <= 4 && letters < 80) {
      out.push({ block: b, cls: 'formula', text });
      continue;
    }
    if (size <= body * 0.9 && b.bbox.y0 > info.height * 0.72 && /^([0-9]{1,2}|[*†‡§¶])/.test(text)) {
      out.push({ block: b, cls: 'footnote', text });
      continue;
    }
    out.push({ block: b, cls: 'text', text });
  }
  assignListLevels(out);
  nestOutline(out, body, blockFontSize);
  joinHeadingLines(out, blockFontSize);
  rankNumberedBySize(out, blockFontSize, (s) => levelForSize(largerThanBody(s, body) ? s : body, info.stats));
  return out;
}

/**
 * The title or section heading a heading-like block is, or undefined where it is none after all
 * (a lower-case opening, a flush-right label, a sentence, a long numbered line: a list item).
 */
function headingItem(
  b: Block,
  text: string,
  size: number,
  kind: { caps: boolean; outline: boolean; allBold: boolean },
  out: Classified[],
  blocks: Block[],
  info: PageInfo,
): Classified | undefined {
  const body = info.stats.bodySize;
  // A title carries no section number: "14 ACKNOWLEDGMENTS" at the top of a page cut alone is
  // that page's largest text, not the document's title; nor does it come after a numbered head.
  const isTitle =
    info.page === 1 &&
    headingNumberDepth(text) === undefined &&
    !out.some((c) => c.cls === 'title' || (c.cls === 'section_header' && headingNumberDepth(c.text) !== undefined)) &&
    (info.stats.titleSize !== undefined
      ? Math.abs(size - info.stats.titleSize) < 0.3
      : loneTitleBlock(b, size, blocks, info, blockFontSize));
  if (isTitle) return { block: b, cls: 'title', text };
  // A section heading opens with a capital, a number or a label: a line that starts in lower
  // case is a keyword list ("finite fields, fast arithmetic, …") or the "and" between two
  // parties of a judgment's caption. Nor is it set flush right alone ("Plaintiff/Respondent"),
  // nor a sentence a size over the body, nor a logo's big letters with small words beside.
  // Lines in the header and footer bands keep their heading form: the furniture stages judge them
  // (stages/italicRunningHead.ts turns an italic band heading, "fonts-conf", into a page header).
  if (
    !inFurnitureBand(b.place) &&
    (lowercaseOpening(b, text, size, body) ||
      flushRightLabel(b, blocks, info.width) ||
      sentenceLine(b, size, body) ||
      lockupLine(b, size, blocks, blockFontSize))
  )
    return undefined;
  // A numbered line that is neither bold nor larger reads as an ordered list item, not a heading.
  if (!kind.caps && !kind.outline && b.marker?.ordered && !kind.allBold && !largerThanBody(size, body))
    return undefined;
  const depth = headingNumberDepth(text);
  const level =
    depth !== undefined && depth <= 6 ? depth : levelForSize(largerThanBody(size, body) ? size : body, info.stats);
  return { block: b, cls: 'section_header', text, level };
}

/** A line ending in a colon up to this size over the body is a label, not a heading. */
const LABEL_MAX_BODY_RATIO = 1.25;

/** Letters a capitals heading needs, and the share of them that are capitals. */
const CAPS_HEADING_MIN_LETTERS = 4;
const CAPS_HEADING_UPPER_SHARE = 0.8;

/** A bold capitals heading may be set this much smaller than the body (REVTeX: 9 pt over 10 pt). */
const CAPS_HEADING_MIN_SIZE = 0.8;

/**
 * A section heading in bold capitals set a size below the body (REVTeX's "ACKNOWLEDGMENTS" and
 * "I. FIRST-LEVEL HEADING", MNRAS's "1 INTRODUCTION": 9 pt bold over a 10 pt body, under the
 * 0.92 a bold line needs): one line of its own, short, no sentence, no math, in the column's flow
 * (not a table cell or a form label). Small-caps fonts give their small capitals as capitals.
 */
function capsHeadingLine(b: Block, text: string, size: number, body: number): boolean {
  const l = b.lines[0];
  // A numbered head keeps its place beside a line across the gutter in the other column (MNRAS's
  // "1 INTRODUCTION" level with "CONTENTS", both bold): a table cell carries no section number.
  // A running head beside its page number ("87" / "4.3. HYPERBOLISCHE GEOMETRIE") is no such head.
  const rowMate = l.inRow && (headingNumberDepth(text) === undefined || inFurnitureBand(b.place));
  if (b.lines.length !== 1 || !l.bold || rowMate || l.monospace || l.mathRatio > 0) return false;
  if (
    text.length > 80 ||
    text.split(/\s+/).length > 10 ||
    /[.,;:!?]$/.test(text) ||
    size < body * CAPS_HEADING_MIN_SIZE
  )
    return false;
  const upper = (text.match(/\p{Lu}/gu) ?? []).length;
  const lower = (text.match(/\p{Ll}/gu) ?? []).length;
  return upper >= CAPS_HEADING_MIN_LETTERS && upper >= CAPS_HEADING_UPPER_SHARE * (upper + lower);
}

/** A one-line section head in capitals that size and weight alone do not make a heading. */
function capsHeadingBlock(b: Block, text: string, size: number, body: number, info: PageInfo): boolean {
  return capsHeadingLine(b, text, size, body) || centredCapsHeadingLine(b, text, size, body, info);
}

/** A centred line's middle may sit this share of the page width off the page's middle. */
const CENTRED_SHARE = 0.02;
/** The top share of the page where a running head may stand (stages/captions.ts: TOP_ROW_MAX). */
const RUNNING_HEAD_ZONE = 0.16;

/** Small-caps fonts: Computer Modern's cmcsc, Latin Modern's LMRomanCaps, OpenType "SC" cuts. */
const SMALL_CAPS_FONT_RE = /cmcsc|caps|smcp|[-a-z\d]sc$/i;

/**
 * A section heading in regular (not bold) capitals or a small-caps font: AASTeX's "ABSTRACT" and
 * "1. INTRODUCTION" (CMR10 capitals, centred), amsart's "REFERENCES", PMLR's "1.1.1.
 * Sub-sub-sections" (CMCSC10, set left). Centred capitals also set author names and affiliations
 * under a title, so the line must be one word or carry a section number; a capitals line must
 * be centred on the page (so it is no table cell), a small-caps one too unless it is numbered.
 */
function centredCapsHeadingLine(b: Block, text: string, size: number, body: number, page: PageInfo): boolean {
  const l = b.lines[0];
  const pageWidth = page.width;
  // Centred capitals up there are a running head set low (amsart), which furniture.ts judges.
  if (l.bbox.y0 < page.height * RUNNING_HEAD_ZONE) return false;
  // Row mates are not checked: a draft's line numbers in the margin share every line's row.
  if (b.lines.length !== 1 || l.bold || l.monospace || l.mathRatio > 0) return false;
  if (text.length > 60 || /[.,;:!?]$/.test(text) || size < body * CAPS_HEADING_MIN_SIZE) return false;
  const words = text.split(/\s+/);
  const numbered = headingNumberDepth(text) !== undefined;
  if (words.length > 1 && (!numbered || words.length > 8)) return false;
  const smallCapsFont = l.spans.every((s) => !s.text.trim() || SMALL_CAPS_FONT_RE.test(s.fontName));
  const centred = Math.abs((l.bbox.x0 + l.bbox.x1) / 2 - pageWidth / 2) <= pageWidth * CENTRED_SHARE;
  if (!centred && !(smallCapsFont && numbered)) return false;
  const upper = (text.match(/\p{Lu}/gu) ?? []).length;
  const lower = (text.match(/\p{Ll}/gu) ?? []).length;
  return smallCapsFont ? upper + lower >= CAPS_HEADING_MIN_LETTERS : upper >= CAPS_HEADING_MIN_LETTERS && lower === 0;
}

/** Nesting depth from indentation: a stack of marker x positions within each run of list items. */
function assignListLevels(items: Classified[]): void {
  let stack: number[] = [];
  for (const c of items) {
    if (c.cls !== 'list_item') {
      // Text indented like a list item's body continues the list; anything else ends it.
      if (!(c.cls === 'text' && stack.length && c.block.bbox.x0 > stack[0] + 2)) stack = [];
      continue;
    }
    const x = c.block.markerX ?? c.block.bbox.x0;
    const tol = Math.max(2, blockFontSize(c.block) * 0.4);
    while (stack.length && x < stack[stack.length - 1] - tol) stack.pop();
    if (!stack.length || x > stack[stack.length - 1] + tol) stack.push(x);
    c.level = stack.length - 1;
  }
}
