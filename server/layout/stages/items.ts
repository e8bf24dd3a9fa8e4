/**
 * Stage 5, items: runs of ordered lines become blocks (blocks/index.ts), blocks get their class
 * (classify.ts), inline math goes into running text and formula blocks are rebuilt as LaTeX
 * (math/), and a paragraph broken across columns or bands is joined again (continuation.ts).
 * Pictures, tables and display formulas stand as items of their own between the blocks.
 */
import type { BBox } from '../../../common/protocol';
import { boundsOf } from '../../../common/bbox';
import { partsToText, toGrid, type DocItem } from '../../model/items';
import type { Line } from '../lines/index';
import { buildBlocks, type Block, type BlockLine } from '../blocks/index';
import { typewriterProse } from '../blocks/typewriter';
import { joinDropCaps } from '../blocks/dropCap';
import { classify, type Classified } from '../blocks/classify';
import { joinLines, vocabularyOf } from '../lines/normalize';
import { continuesParagraph } from '../blocks/continuation';
import { blockLatex, inlineParts, mathSpanTest } from '../math/index';
import { joinsAcross, samePlace } from '../order/place';
import type { PageState } from './state';

/** A drawn bullet is at most this share of the line's font size wide and high (plus a point)… */
const BULLET_MAX_SIZE = 0.8;
/** …its middle within this share of the line's height of the line's middle… */
const BULLET_MAX_RISE = 0.45;
/** …and it ends at most this many font sizes left of the line. */
const BULLET_MAX_LEAD = 2.5;

type Elem =
  | { kind: 'blocks'; blocks: Block[] }
  | { kind: 'picture'; index: number }
  | { kind: 'table'; index: number }
  | { kind: 'formula'; index: number };

export function buildItems(state: PageState): PageState {
  const { content, stats, marks } = state.input;
  const elems = groupBlocks(state, marks);
  const allBlocks = elems.flatMap((e) => (e.kind === 'blocks' ? e.blocks : []));
  const vocab = vocabularyOf(state.lines.map((l) => l.text));
  const classified = classify(
    allBlocks,
    { page: content.page, width: state.width, height: state.height, stats },
    vocab,
  );
  const byBlock = new Map<Block, Classified>(classified.map((c) => [c.block, c]));
  const grid = { width: state.width, height: state.height };
  const isMath = mathSpanTest(content.spans);

  /** Inline math into running text; blocks classified as formulas rebuilt as LaTeX. */
  const addMath = (item: DocItem, b: Block, marker: string | undefined) => {
    try {
      if (item.cls === 'formula') {
        const tex = blockLatex(b, content.rules, item.text);
        if (tex) item.text = tex;
        else item.cls = 'text';
      } else if (item.cls === 'text' || item.cls === 'list_item' || item.cls === 'caption' || item.cls === 'footnote') {
        const parts = inlineParts(b, isMath, vocab, marker);
        if (parts) {
          item.parts = parts;
          item.text = partsToText(parts);
        }
      }
    } catch {
      // Keep the plain text.
    }
  };

  const items: DocItem[] = [];
  let lastText: { item: DocItem; block: Block } | undefined;
  for (const e of elems) {
    if (e.kind === 'picture') {
      const b = state.pictures[e.index].bbox;
      items.push({ cls: 'picture', text: '', bbox: b, grid: toGrid(b, grid) });
      continue;
    }
    if (e.kind === 'table') {
      const t = state.tables[e.index];
      items.push({
        cls: t.index ? 'document_index' : 'table',
        text: '',
        bbox: t.bbox,
        grid: toGrid(t.bbox, grid),
        table: t.rows,
      });
      continue;
    }
    if (e.kind === 'formula') {
      const f = state.formulas[e.index];
      items.push({ cls: 'formula', text: f.latex, bbox: f.bbox, grid: toGrid(f.bbox, grid) });
      continue;
    }
    for (const b of e.blocks) {
      const c = byBlock.get(b)!;
      // A heading's second block, its text already in the heading above (blocks/headingRoles.ts).
      if (c.absorbed) continue;
      // A paragraph (or list item) that runs from the foot of one column (or band) to the head
      // of the next is one: joined, and dehyphenated across the break. Furniture bands and side notes
      // are never part of the body's paragraphs.
      const prev = items[items.length - 1];
      const prevBlock = prev && lastText?.item === prev ? lastText.block : undefined;
      if (
        c.cls === 'text' &&
        prevBlock &&
        !samePlace(prevBlock.place, b.place) &&
        joinsAcross(prevBlock.place) &&
        joinsAcross(b.place) &&
        continuesParagraph(prevBlock, b, prev.text, c.text)
      ) {
        const next: DocItem = { cls: c.cls, text: c.text };
        addMath(next, b, undefined);
        if (prev.parts || next.parts) {
          // Inline math on either side: the parts run on, a space between (no dehyphenation
          // across a formula).
          prev.parts = [
            ...(prev.parts ?? [{ math: false, text: prev.text }]),
            { math: false, text: ' ' },
            ...(next.parts ?? [{ math: false, text: next.text }]),
          ];
          prev.text = partsToText(prev.parts);
        } else prev.text = joinLines([prev.text, c.text], vocab);
        continue;
      }
      // A heading that took in the block under it covers it (its crop for OCR, its box in the view).
      const box = c.joined?.length ? boundsOf([b.bbox, ...c.joined.map((j) => j.bbox)]) : b.bbox;
      const item: DocItem = { cls: c.cls, text: c.text, bbox: box, grid: toGrid(box, grid) };
      addMath(item, b, c.cls === 'list_item' ? b.marker?.marker : undefined);
      if (c.level !== undefined) item.level = c.level;
      if (c.ordered !== undefined) item.ordered = c.ordered;
      // The document's own label ("212.", "(a)"), kept for Markdown instead of renumbering.
      if (c.cls === 'list_item' && c.ordered && b.marker?.ordered) {
        item.marker = b.marker.marker;
        // A label set in math italic (REVTeX's run-in "a.") came through as an inline formula.
        const first = item.parts?.[0];
        if (item.parts && first?.math && first.text.trim() === item.marker) {
          item.parts.shift();
          if (item.parts[0] && !item.parts[0].math) item.parts[0].text = item.parts[0].text.replace(/^\s+/, '');
          if (!item.parts.some((p) => p.math)) delete item.parts;
          item.text = item.parts ? partsToText(item.parts) : item.text.replace(/^\$[^$]*\$\s*/, '');
        }
      }
      items.push(item);
      lastText = c.cls === 'text' || c.cls === 'list_item' ? { item, block: b } : undefined;
    }
  }
  return { ...state, items };
}

/** Runs of lines become blocks; pictures, tables and formulas stand alone between them. */
function groupBlocks(state: PageState, marks: BBox[]): Elem[] {
  const elems: Elem[] = [];
  let run: BlockLine[] = [];
  const flush = () => {
    if (run.length) elems.push({ kind: 'blocks', blocks: buildBlocks(joinDropCaps(run)) });
    run = [];
  };
  // On a page set in a typewriter face, its prose lines are read as text, not as code.
  const prose = typewriterProse(state.ordered.flatMap(({ unit }) => (unit.kind === 'line' ? [unit.line] : [])));
  for (const { unit, place } of state.ordered) {
    if (unit.kind === 'line') {
      const line = prose.has(unit.line) ? { ...unit.line, monospace: false } : unit.line;
      run.push({ line, place, shapeBullet: findBullet(line, marks) });
    } else {
      flush();
      elems.push({ kind: unit.kind, index: unit.index });
    }
  }
  flush();
  return elems;
}

/** A bullet drawn as a vector shape just left of the line. */
function findBullet(line: Line, marks: BBox[]): BBox | undefined {
  const size = line.fontSize;
  const cy = (line.bbox.y0 + line.bbox.y1) / 2;
  for (const m of marks) {
    const w = m.x1 - m.x0;
    const h = m.y1 - m.y0;
    if (w > size * BULLET_MAX_SIZE + 1 || h > size * BULLET_MAX_SIZE + 1) continue;
    const my = (m.y0 + m.y1) / 2;
    if (Math.abs(my - cy) > (line.bbox.y1 - line.bbox.y0) * BULLET_MAX_RISE) continue;
    if (m.x1 <= line.bbox.x0 + 0.5 && m.x1 >= line.bbox.x0 - size * BULLET_MAX_LEAD) return m;
  }
  return undefined;
}
