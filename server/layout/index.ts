/**
 * Page layout: spans, rules, images and tables → DocItems in reading order.
 *   spans → lines (lines.ts) → XY-cut reading order with pictures and tables as atomic units
 *   (xycut.ts) → blocks (blocks.ts) → classes (classify.ts) → captions attached, furniture
 *   candidates listed.
 * Pure computation on plain data: no pdf.js, no I/O, so it runs the same on OCR output.
 */
import type { BBox } from '../protocol';
import { toGrid, type DocItem } from '../doctags/types';
import type { PageContent, TextSpan } from '../pipeline/types';
import type { DocStats } from '../pdf/open';
import { buildLines, findGutters, makeLine, markRowMates, type Line } from './lines';
import { xyCut, type Unit } from './xycut';
import { buildBlocks, type Block, type BlockLine } from './blocks';
import { CAPTION_RE, classify, type Classified } from './classify';
import { joinLines, vocabularyOf } from './normalize';
import { continuesParagraph } from './continuation';
import type { TableFound } from './tableDetector';
import { isJustifiedProse } from './streamEvidence';
import { isJustifiedOcrProse } from './justifiedOcr';
import { followStream } from './streamOrder';
import { blockLatex, findDisplayFormulas, inlineParts, mathSpanTest } from './math/index';
import { partsToText } from '../doctags/types';

/** Share of the page height at the top and bottom where page headers and footers live. */
export const FURNITURE_BAND = 0.08;

export interface LayoutInput {
  content: PageContent;
  stats: DocStats;
  /** Tiny vector shapes: bullets drawn as shapes. */
  marks: BBox[];
  tables: TableFound[];
  /** Angle of each span in degrees (0 = upright); spans not upright are laid out one per line. */
  angles?: number[];
}

export interface LayoutResult {
  items: DocItem[];
  furnitureCandidates: number[];
}

type UnitRef = Unit & ({ kind: 'line'; line: Line; rotated: boolean } | { kind: 'picture'; index: number } | { kind: 'table'; index: number } | { kind: 'formula'; index: number });

export function layoutPage(input: LayoutInput): LayoutResult {
  const { content, stats } = input;
  const W = content.width;
  const H = content.height;
  // A picture under a good deal of text is a background (a shaded heading box, a banner): the
  // text is what matters. Sparse text on a figure (axis labels) belongs to the figure.
  const textArea = (b: BBox) => {
    let a = 0;
    for (const s of content.spans) if (inside({ x: (s.bbox.x0 + s.bbox.x1) / 2, y: (s.bbox.y0 + s.bbox.y1) / 2 }, b)) a += area(s.bbox);
    return a;
  };
  const pictures = content.graphics.filter((g) => area(g.bbox) < W * H * 0.85 && area(g.bbox) > 0 && textArea(g.bbox) < area(g.bbox) * 0.1);
  // Justified prose that alignment mistook for a table goes back to the text flow.
  // Only tables found by alignment alone: rules (full grids, booktabs) are stronger evidence.
  const tables = input.tables.filter((t) => !(t.alignedOnly && (isJustifiedProse(t.spanIndices, content.spans) || isJustifiedOcrProse(t.spanIndices, content.spans))));
  const consumed = new Set<number>();
  for (const t of tables) for (const i of t.spanIndices) consumed.add(i);
  // Display formulas leave the text flow as units of their own (server/layout/math).
  let formulas: ReturnType<typeof findDisplayFormulas> = [];
  try {
    formulas = findDisplayFormulas(content.spans, content.rules, consumed, W, input.angles);
  } catch {
    formulas = []; // math reading is an enhancement: on any surprise the text flows as lines
  }
  for (const f of formulas) for (const i of f.spanIndices) consumed.add(i);
  const upright: TextSpan[] = [];
  const rotated: TextSpan[] = [];
  const inFigure: TextSpan[] = [];
  content.spans.forEach((s, i) => {
    if (consumed.has(i)) return;
    const c = { x: (s.bbox.x0 + s.bbox.x1) / 2, y: (s.bbox.y0 + s.bbox.y1) / 2 };
    if (!s.text.trim()) return;
    // Text drawn inside a figure (axis labels, diagram words) belongs to the figure…
    if ((input.angles?.[i] ?? 0) === 0 && pictures.some((p) => inside(c, p.bbox))) {
      inFigure.push(s);
      return;
    }
    const a = input.angles?.[i] ?? 0;
    if (Math.abs(a) <= 3) upright.push(s);
    else rotated.push(s);
  });
  // …except a caption that the figure's box happened to take in.
  for (const l of buildLines(inFigure)) if (CAPTION_RE.test(l.text)) upright.push(...l.spans);
  const gutters = findGutters(upright, W);
  const lines = buildLines(upright, gutters);
  markRowMates(lines, W);
  const units: UnitRef[] = [];
  for (const l of lines) units.push({ kind: 'line', line: l, rotated: false, bbox: l.bbox, cutBox: band(l.bbox), words: l.text.split(/\s+/).length });
  for (const s of rotated) {
    const l = makeLine([s], false);
    units.push({ kind: 'line', line: l, rotated: true, bbox: l.bbox, cutBox: l.bbox });
  }
  pictures.forEach((p, index) => units.push({ kind: 'picture', index, bbox: p.bbox, cutBox: p.bbox }));
  tables.forEach((t, index) => units.push({ kind: 'table', index, bbox: t.bbox, cutBox: t.bbox }));
  formulas.forEach((f, index) => units.push({ kind: 'formula', index, bbox: f.bbox, cutBox: f.bbox }));
  // A figure or table that pokes a little into the gutter (white margins of an image) must not hide the
  // columns: for cutting, clip it to the side where most of it lies.
  // Text lines are clipped only when they reach into a gutter without crossing it (a table row
  // wider than its column, OCR'd): a title or a heading across a gutter is a full-width unit.
  for (const u of units) {
    for (const g of gutters) {
      const b = u.cutBox;
      // Only into the gutter, not across it: a table wider than its column (CSS columns let it
      // overflow) still stands in its column.
      if (b.x1 <= g.x0 + 0.5 || b.x0 >= g.x1 - 0.5) continue;
      if (u.kind === 'line' && b.x0 < g.x0 && b.x1 > g.x1) continue;
      const left = g.x0 - b.x0;
      const right = b.x1 - g.x1;
      if (Math.min(left, right) > 0.25 * (b.x1 - b.x0)) continue;
      u.cutBox = left >= right ? { ...b, x1: g.x0 - 0.1 } : { ...b, x0: g.x1 + 0.1 };
    }
  }

  // Page headers and footers stand apart: in the band, and separated from the body by more than
  // a line's spacing (the first line of a column that starts high on the page is not furniture).
  const apart = (u: UnitRef, below: boolean) => {
    const h = u.bbox.y1 - u.bbox.y0;
    let gap = Infinity;
    for (const v of units) {
      if (v === u || Math.min(u.bbox.x1, v.bbox.x1) - Math.max(u.bbox.x0, v.bbox.x0) <= 0) continue;
      // By middles: OCR'd line boxes of a tight column overlap the line before them, and that
      // line is still the one right above (a column's last line is not a footer).
      const dc = (v.bbox.y0 + v.bbox.y1) / 2 - (u.bbox.y0 + u.bbox.y1) / 2;
      if (below && (v.bbox.y0 >= u.bbox.y1 - 1 || dc > 0.6 * h)) gap = Math.min(gap, Math.max(0, v.bbox.y0 - u.bbox.y1));
      if (!below && (v.bbox.y1 <= u.bbox.y0 + 1 || -dc > 0.6 * h)) gap = Math.min(gap, Math.max(0, u.bbox.y0 - v.bbox.y1));
    }
    return gap >= Math.max(3, h * 0.6);
  };
  // Stream position of a line: its first run in the content stream (pdf.js item order).
  const streamAt = new Map<TextSpan, number>();
  content.spans.forEach((s, i) => streamAt.set(s, i));
  const lineStream = (u: UnitRef) => {
    // OCR'd words come in the recognizer's order, not a producer's: no evidence of reading order.
    if (u.kind !== 'line' || u.rotated || u.line.spans[0]?.fontName === 'ocr') return undefined;
    let m = Infinity;
    for (const s of u.line.spans) m = Math.min(m, streamAt.get(s) ?? Infinity);
    return Number.isFinite(m) ? m : undefined;
  };
  // A line the producer drew among the body lines, right before the line under it (the first
  // line of a column at the head of the page) or right after the line above it (the last list
  // item at a column's foot), is body however apart it stands: a running header or footer is
  // drawn first, last, or on its own.
  const streamLines = units.filter((u) => lineStream(u) !== undefined).sort((a, b) => lineStream(a)! - lineStream(b)!);
  const bandLine = (u: UnitRef, atTop: boolean) => {
    const k = streamLines.indexOf(u);
    // Drawn first or last (three body lines on either side at least): a header or footer.
    if (k < 3 || k > streamLines.length - 4) return true;
    const v = streamLines[atTop ? k + 1 : k - 1];
    if (!v) return true;
    const h = u.bbox.y1 - u.bbox.y0;
    const gap = atTop ? v.bbox.y0 - u.bbox.y1 : u.bbox.y0 - v.bbox.y1;
    const overlapX = Math.min(u.bbox.x1, v.bbox.x1) - Math.max(u.bbox.x0, v.bbox.x0) > 0;
    return !(overlapX && gap >= -1 && gap <= 2.5 * h);
  };
  const inTop = (u: UnitRef) => u.bbox.y1 <= H * FURNITURE_BAND;
  const inBottom = (u: UnitRef) => u.bbox.y0 >= H * (1 - FURNITURE_BAND);
  const top = units.filter((u) => inTop(u) && apart(u, true) && bandLine(u, true)).sort((a, b) => a.bbox.x0 - b.bbox.x0);
  const bottom = units
    .filter((u) => inBottom(u) && !top.includes(u) && apart(u, false) && bandLine(u, false))
    .sort((a, b) => a.bbox.x0 - b.bbox.x0);
  // Text turned up a side margin, clear of the body's lines (a "Downloaded from …" or "Accepted
  // manuscript" stamp, an arXiv identifier): furniture candidates, out of the body's flow, where
  // an XY-cut would have put them between two lines of a paragraph.
  const uprightLines = units.filter((u) => u.kind === 'line' && !u.rotated && !top.includes(u) && !bottom.includes(u));
  const bodyX0 = Math.min(...uprightLines.map((u) => u.bbox.x0));
  const bodyX1 = Math.max(...uprightLines.map((u) => u.bbox.x1));
  const side = units
    .filter((u) => u.kind === 'line' && u.rotated && !top.includes(u) && !bottom.includes(u) && uprightLines.length >= 3 && (u.bbox.x1 <= bodyX0 - 2 || u.bbox.x0 >= bodyX1 + 2))
    .sort((a, b) => a.bbox.x0 - b.bbox.x0 || a.bbox.y0 - b.bbox.y0);
  const middle = units.filter((u) => !top.includes(u) && !bottom.includes(u) && !side.includes(u));
  const rtl = lines.filter((l) => l.rtl).length * 2 > lines.length;
  const minGutter = Math.max(stats.bodySize * 0.45, 4);
  const streamOf = (o: { unit: UnitRef }) => {
    // A table is where its first cell was drawn; a picture has no place in the text stream.
    if (o.unit.kind === 'table') return tables[o.unit.index].spanIndices.length ? Math.min(...tables[o.unit.index].spanIndices) : undefined;
    return lineStream(o.unit);
  };
  const geo = xyCut(middle, { minGutter, rtl, minColumnWidth: W * 0.18, gutters });
  const ordered = [
    ...top.map((unit) => ({ unit, column: 'T' })),
    ...(rtl ? geo : followStream(geo, streamOf, gutters)),
    ...bottom.map((unit) => ({ unit, column: 'B' })),
    ...side.map((unit) => ({ unit, column: 'S' })),
  ];

  // Runs of lines become blocks; pictures and tables stand alone between them.
  type Elem = { kind: 'blocks'; blocks: Block[] } | { kind: 'picture'; index: number } | { kind: 'table'; index: number } | { kind: 'formula'; index: number };
  const elems: Elem[] = [];
  let run: BlockLine[] = [];
  let rotatedN = 0;
  const flush = () => {
    if (run.length) elems.push({ kind: 'blocks', blocks: buildBlocks(run) });
    run = [];
  };
  for (const { unit, column } of ordered) {
    if (unit.kind === 'line') {
      const col = unit.rotated ? `${column}r${rotatedN++}` : column;
      run.push({ line: unit.line, column: col, shapeBullet: findBullet(unit.line, input.marks) });
    } else {
      flush();
      elems.push({ kind: unit.kind, index: unit.index });
    }
  }
  flush();

  const allBlocks = elems.flatMap((e) => (e.kind === 'blocks' ? e.blocks : []));
  const vocab = vocabularyOf(lines.map((l) => l.text));
  const classified = classify(allBlocks, { page: content.page, width: W, height: H, stats }, vocab);
  const byBlock = new Map<Block, Classified>(classified.map((c) => [c.block, c]));

  const grid = { width: W, height: H };
  const items: DocItem[] = [];
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
  let lastText: { item: DocItem; block: Block } | undefined;
  for (const e of elems) {
    if (e.kind === 'picture') {
      const b = pictures[e.index].bbox;
      items.push({ cls: 'picture', text: '', bbox: b, grid: toGrid(b, grid) });
    } else if (e.kind === 'table') {
      const t = tables[e.index];
      items.push({ cls: 'table', text: '', bbox: t.bbox, grid: toGrid(t.bbox, grid), table: t.rows });
    } else if (e.kind === 'formula') {
      const f = formulas[e.index];
      items.push({ cls: 'formula', text: f.latex, bbox: f.bbox, grid: toGrid(f.bbox, grid) });
    } else {
      for (const b of e.blocks) {
        const c = byBlock.get(b)!;
        // A paragraph (or list item) that runs from the foot of one column (or band) to the head
        // of the next is one: joined, and dehyphenated across the break.
        const prev = items[items.length - 1];
        const prevBlock = prev && lastText?.item === prev ? lastText.block : undefined;
        // Header and footer bands ('T', 'B') and side-margin text ('S') are never part of the body's paragraphs.
        const inBand = (col: string) => col === 'T' || col === 'B' || col.startsWith('S');
        if (c.cls === 'text' && prevBlock && prevBlock.column !== b.column && !inBand(prevBlock.column) && !inBand(b.column) && continuesParagraph(prevBlock, b, prev.text, c.text)) {
          const next: DocItem = { cls: c.cls, text: c.text };
          addMath(next, b, undefined);
          if (prev.parts || next.parts) {
            // Inline math on either side: the parts run on, a space between (no dehyphenation
            // across a formula).
            prev.parts = [...(prev.parts ?? [{ math: false, text: prev.text }]), { math: false, text: ' ' }, ...(next.parts ?? [{ math: false, text: next.text }])];
            prev.text = partsToText(prev.parts);
          } else prev.text = joinLines([prev.text, c.text], vocab);
          continue;
        }
        const item: DocItem = { cls: c.cls, text: c.text, bbox: b.bbox, grid: toGrid(b.bbox, grid) };
        addMath(item, b, c.cls === 'list_item' ? b.marker?.marker : undefined);
        if (c.level !== undefined) item.level = c.level;
        if (c.ordered !== undefined) item.ordered = c.ordered;
        items.push(item);
        lastText = c.cls === 'text' || c.cls === 'list_item' ? { item, block: b } : undefined;
      }
    }
  }
  const withCaptions = attachCaptions(items);
  const furnitureCandidates: number[] = [];
  const bandBoxes = [...top, ...bottom, ...side].map((u) => u.bbox);
  withCaptions.forEach((it, i) => {
    if (!it.bbox || it.cls === 'picture' || it.cls === 'table') return;
    const b = it.bbox;
    if (bandBoxes.some((u) => u.x0 >= b.x0 - 0.5 && u.x1 <= b.x1 + 0.5 && u.y0 >= b.y0 - 0.5 && u.y1 <= b.y1 + 0.5)) furnitureCandidates.push(i);
  });
  return { items: withCaptions, furnitureCandidates };
}

/** Moves each caption into the nearest picture or table above or below it (Docling nests them). */
function attachCaptions(items: DocItem[]): DocItem[] {
  const taken = new Set<number>();
  items.forEach((c, ci) => {
    if (c.cls !== 'caption' || !c.bbox) return;
    const wantTable = /^(table|tab\.)/i.test(c.text);
    let best = -1;
    let bestD = Infinity;
    items.forEach((t, ti) => {
      if ((t.cls !== 'picture' && t.cls !== 'table') || t.caption || !t.bbox) return;
      const overlapX = Math.min(c.bbox!.x1, t.bbox.x1) - Math.max(c.bbox!.x0, t.bbox.x0);
      if (overlapX <= 0) return;
      const d = c.bbox!.y0 >= t.bbox.y1 ? c.bbox!.y0 - t.bbox.y1 : t.bbox.y0 - c.bbox!.y1;
      const penalty = (t.cls === 'table') === wantTable ? 0 : 30;
      if (d > -5 && d < 60 && d + penalty < bestD) {
        bestD = d + penalty;
        best = ti;
      }
    });
    if (best >= 0) {
      items[best].caption = c;
      taken.add(ci);
    }
  });
  return items.filter((_, i) => !taken.has(i));
}

function findBullet(line: Line, marks: BBox[]): BBox | undefined {
  const size = line.fontSize;
  const cy = (line.bbox.y0 + line.bbox.y1) / 2;
  for (const m of marks) {
    const w = m.x1 - m.x0;
    const h = m.y1 - m.y0;
    if (w > size * 0.8 + 1 || h > size * 0.8 + 1) continue;
    const my = (m.y0 + m.y1) / 2;
    if (Math.abs(my - cy) > (line.bbox.y1 - line.bbox.y0) * 0.45) continue;
    if (m.x1 <= line.bbox.x0 + 0.5 && m.x1 >= line.bbox.x0 - size * 2.5) return m;
  }
  return undefined;
}

function band(b: BBox): BBox {
  const cy = (b.y0 + b.y1) / 2;
  const h = (b.y1 - b.y0) * 0.3;
  return { x0: b.x0, y0: cy - h, x1: b.x1, y1: cy + h };
}

function area(b: BBox): number {
  return Math.max(0, b.x1 - b.x0) * Math.max(0, b.y1 - b.y0);
}

function inside(p: { x: number; y: number }, b: BBox): boolean {
  return p.x >= b.x0 && p.x <= b.x1 && p.y >= b.y0 && p.y <= b.y1;
}
