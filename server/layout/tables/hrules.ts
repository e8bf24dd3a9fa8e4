/**
 * Tables drawn with horizontal rules only (booktabs: top, middle and bottom rules, `\cmidrule`s
 * under spanning headers; word processors: a rule under the header row). The rules give the
 * table's extent and where the header ends; the columns come from the white gaps through the
 * body rows, so right- and decimal-aligned numbers, empty cells and cells wrapped over several
 * lines (one cell, not one row per line) read right.
 *
 * What keeps text out: the body must have at least two rows with two or more short cells in most
 * of them, in at least two columns; a rule under a heading or over footnotes has prose under it.
 *
 * Statements and invoices (issue 31): a first rule with the header set right above it underlines
 * the header, and the rules under it only group the body (subtotals, totals); rows go on past the
 * last rule while they line up with the table's cells (a totals row under a double rule, a bank
 * statement's bookings under the rule that closes the opening balance); a centred title between
 * two tables of one width ends the first. Rows: lines set solid are one row each when their
 * numbers stack (an invoice's items), lines set solid under a row's first line are that row's
 * details when rows are padded apart (paddedRows); a label wrapped in the first column joins it.
 */
import type { BBox } from '../../../common/protocol';
import type { OtslCell } from '../../model/items';
import type { Rule, TextSpan } from '../../model/content';
import { normalizeSpanText } from '../lines/normalize';
import { isTableCaptionLine, isTableCaptionStart } from '../blocks/captions';
import { markBases } from './marks';
import { continuedPieces, partialHeaderRule, subheadings } from './spanHeads';
import { joinCell, pageWords, type PageWords } from './cellJoin';

export interface HruleTable {
  bbox: BBox;
  rows: OtslCell[][];
  headerRows: number;
  spanIndices: number[];
}

interface Piece {
  x0: number;
  x1: number;
  text: string;
  spans: number[];
  /** Set in a monospace font (code listings framed by rules are not tables). */
  mono: boolean;
  /** Every span bold. */
  bold: boolean;
}

interface TLine {
  y0: number;
  y1: number;
  size: number;
  pieces: Piece[];
}

function horizontal(r: Rule): boolean {
  return r.y1 - r.y0 <= 2.5 && r.x1 - r.x0 >= 30;
}

/** Rows of text in a box: spans grouped by vertical centre, then split into pieces at wide gaps. */
function linesIn(spans: TextSpan[], idx: number[]): TLine[] {
  // A footnote mark or script is grouped with the text it follows (marks.ts).
  const bases = markBases(spans, idx);
  const sorted = [...idx].sort((a, b) => cy(spans[bases.get(a) ?? a]!) - cy(spans[bases.get(b) ?? b]!));
  const groups: { c: number; h: number; members: number[] }[] = [];
  for (const i of sorted) {
    const base = bases.get(i);
    if (base !== undefined) {
      const g = groups.find((x) => x.members.includes(base));
      if (g) {
        g.members.push(i);
        continue;
      }
    }
    const s = spans[i]!;
    const h = s.bbox.y1 - s.bbox.y0;
    const g = groups.find((x) => Math.abs(x.c - cy(s)) < Math.min(x.h, h) * 0.45);
    if (g) g.members.push(i);
    else groups.push({ c: cy(s), h, members: [i] });
  }
  const lines = groups.map((g) => {
    // Left to right; a superscript and a subscript stacked at one x read top first ("D¹₄ₕ").
    const ms = g.members.sort((a, b) => {
      const dx = spans[a]!.bbox.x0 - spans[b]!.bbox.x0;
      return Math.abs(dx) < 0.5 ? spans[a]!.bbox.y0 - spans[b]!.bbox.y0 : dx;
    });
    const size = Math.max(...ms.map((i) => spans[i]!.fontSize));
    const pieces: Piece[] = [];
    for (const i of ms) {
      const s = spans[i]!;
      const last = pieces[pieces.length - 1];
      const t = normalizeSpanText(s.text);
      // A word space is ~0.25–0.5 em; table columns are set at least ~1 em apart.
      if (last && s.bbox.x0 - last.x1 < Math.max(3, size * 0.7)) {
        const gap = s.bbox.x0 - last.x1;
        last.text += (gap > size * 0.15 && !/^\s/.test(t) ? ' ' : '') + t;
        last.x1 = Math.max(last.x1, s.bbox.x1);
        last.spans.push(i);
        last.bold &&= s.bold === true || !t.trim();
      } else
        pieces.push({ x0: s.bbox.x0, x1: s.bbox.x1, text: t, spans: [i], mono: s.monospace, bold: s.bold === true });
    }
    for (const p of pieces) p.text = p.text.replace(/\s+/g, ' ').trim();
    const y0 = Math.min(...ms.map((i) => spans[i]!.bbox.y0));
    const y1 = Math.max(...ms.map((i) => spans[i]!.bbox.y1));
    return { y0, y1, size, pieces: pieces.filter((p) => p.text) };
  });
  return lines.filter((l) => l.pieces.length).sort((a, b) => a.y0 - b.y0);
}

function cy(s: TextSpan): number {
  const b = (s as { baseline?: number }).baseline;
  return b !== undefined ? b - 0.3 * s.fontSize : (s.bbox.y0 + s.bbox.y1) / 2;
}

/** Column intervals: x ranges covered by the body's pieces, split where few lines cover. */
function columns(body: TLine[], x0: number, x1: number): [number, number][] {
  const W = Math.ceil(x1 - x0) + 2;
  const cover = new Int32Array(W);
  for (const l of body)
    for (const p of l.pieces)
      for (let x = Math.max(0, Math.floor(p.x0 - x0)); x < Math.min(W, Math.ceil(p.x1 - x0)); x++) cover[x]++;
  // A piece crossing a gap (a spanning cell, a group label) is allowed in a few lines.
  const limit = Math.max(0, Math.floor(body.length * 0.12));
  const size = body.reduce((a, l) => a + l.size, 0) / body.length;
  const out: [number, number][] = [];
  let x = 0;
  while (x < W) {
    while (x < W && cover[x]! <= limit) x++;
    if (x >= W) break;
    let y = x;
    // A column ends at a gap at least ~0.6 em wide.
    for (;;) {
      while (y < W && cover[y]! > limit) y++;
      let z = y;
      while (z < W && cover[z]! <= limit) z++;
      if (z >= W || z - y >= size * 0.6) break;
      y = z;
    }
    out.push([x0 + x, x0 + y]);
    x = y;
  }
  return out;
}

function colOf(p: Piece, cols: [number, number][]): number[] {
  const hit: number[] = [];
  cols.forEach(([a, b], k) => {
    const ov = Math.min(b, p.x1) - Math.max(a, p.x0);
    if (ov > Math.min(b - a, p.x1 - p.x0) * 0.5 || (ov > 0 && p.x0 < a && p.x1 > b)) hit.push(k);
  });
  if (hit.length) return hit;
  // Nearest column by centre.
  const c = (p.x0 + p.x1) / 2;
  let best = 0;
  cols.forEach(([a, b], k) => {
    if (Math.abs((a + b) / 2 - c) < Math.abs((cols[best]![0] + cols[best]![1]) / 2 - c)) best = k;
  });
  return [best];
}

/**
 * The columns a header piece heads. Besides the columns it covers (colOf), a heading centred
 * over a pair of columns with its centre in the white gap between them ("D¹₄ₕ" over "1st
 * alternative" and "2nd alternative", "Year Ended" over two year columns) spans both — unless
 * a piece of the header line above or below covers most of it: then it is one line of a cell
 * set on two ("Tokens" over "per second").
 */
function headCols(p: Piece, cols: [number, number][], head: TLine[] = []): number[] {
  const cs = colOf(p, cols);
  if (cs.length > 1) return cs;
  // A group heading centred over two or more sub-headings spans their columns (spanHeads.ts).
  const line = head.find((l) => l.pieces.includes(p));
  const subs = line ? subheadings(p, line, head) : undefined;
  if (subs) {
    const under = subs.flatMap((q) => colOf(q, cols));
    const lo = Math.min(...under);
    const hi = Math.max(...under);
    if (hi > lo) return Array.from({ length: hi - lo + 1 }, (_, k) => lo + k);
  }
  const w = p.x1 - p.x0;
  const stacked = head.some((l) =>
    l.pieces.some((q) => q !== p && Math.min(q.x1, p.x1) - Math.max(q.x0, p.x0) > 0.5 * Math.min(w, q.x1 - q.x0)),
  );
  if (stacked) return cs;
  const c = (p.x0 + p.x1) / 2;
  for (let k = 0; k + 1 < cols.length; k++) {
    const [a0, a1] = cols[k]!;
    const [b0, b1] = cols[k + 1]!;
    if (c <= a1 || c >= b0) continue;
    const mid = ((a0 + a1) / 2 + (b0 + b1) / 2) / 2;
    if (Math.abs(c - mid) <= 0.15 * (b1 - a0)) return [k, k + 1];
  }
  return cs;
}

export function hruleTables(spans: TextSpan[], rules: Rule[], taken: Set<number>, pageWidth: number): HruleTable[] {
  const hs = mergePieces(rules.filter((r) => r.y1 - r.y0 <= 2.5 && r.x1 - r.x0 >= 3)).filter(horizontal);
  const words = pageWords(spans);
  if (!hs.length) return captionTables(spans, taken, pageWidth, words);
  // Rules of one table: similar left and right ends (cmidrules are shorter and sit inside).
  const used = new Set<Rule>();
  const out: HruleTable[] = [];
  for (const top of hs) {
    if (used.has(top)) continue;
    const free = spans
      .map((_, i) => i)
      .filter((i) => !taken.has(i) && spans[i]!.text.trim() && (spans[i]!.dir ?? 'ltr') !== 'ttb');
    const inX = (i: number) => spans[i]!.bbox.x0 >= top.x0 - 4 && spans[i]!.bbox.x1 <= top.x1 + 4;
    const between = (a: Rule, b: Rule) =>
      linesIn(
        spans,
        free.filter((i) => inX(i) && cy(spans[i]!) > a.y1 && cy(spans[i]!) < b.y0),
      );
    // Rules of the same width below it belong to this table until text between two of them is
    // a caption or prose (the next table on the page starts there).
    const fam: Rule[] = [top];
    for (const r of hs) {
      if (used.has(r) || r === top || r.y0 <= top.y0 + 1 || Math.abs(r.x0 - top.x0) > 6 || Math.abs(r.x1 - top.x1) > 6)
        continue;
      const last = fam[fam.length - 1]!;
      if (r.y0 - last.y1 < 1) continue; // a double rule
      const mid = between(last, r);
      if (mid.some((l) => isProse(l, top) || isTableCaptionStart(l.pieces[0]!.text) || isTitleLine(l, top, mid))) break;
      fam.push(r);
    }
    {
      const bottom = fam[fam.length - 1]!;
      let region: TLine[];
      let headerEnd: number; // y below which the body starts
      let headRule: Rule | undefined; // a partial rule that ends the header (not a cmidrule)
      if (fam.length >= 2 && bottom.y0 - top.y0 > 10) {
        region = between(top, bottom);
        const near = linesIn(
          spans,
          free.filter((i) => inX(i) && cy(spans[i]!) > top.y0 - 80 && cy(spans[i]!) < bottom.y1 + 600),
        );
        const head = headAbove(near, top);
        if (head.some((l) => l.pieces.length >= 2)) {
          // The first rule underlines a header set above it (a word processor's or the LaTeX
          // invoice package's rule under the header, no rule over it): the rules below it
          // divide body groups (subtotals, totals), not header from body.
          region = [...head, ...region, ...tailBelow(near, bottom, [...head, ...region])];
          headerEnd = top.y1;
        } else {
          // The header ends at the first full-width rule under the top one (booktabs' midrule).
          const mid = fam.find((r) => r !== top && r !== bottom && r.y0 > top.y1 + 2);
          headerEnd = mid ? mid.y0 : top.y1;
          // No full-width rule: a stacked header's rule stopped by a cell spanning its rows
          // (spanHeads.ts), else the first line alone.
          headRule = mid ? undefined : partialHeaderRule(hs, top, bottom, region);
          if (headRule) headerEnd = headRule.y0;
          else if (!mid && region.length) headerEnd = (region[0]!.y1 + (region[1]?.y0 ?? region[0]!.y1)) / 2;
        }
      } else {
        // One rule: the header row above it, the body below it until the text stops being a table.
        const near = free.filter((i) => inX(i) && cy(spans[i]!) > top.y0 - 80 && cy(spans[i]!) < top.y0 + 600);
        const all = linesIn(spans, near);
        const below = all.filter((l) => l.y0 >= top.y1 - 1);
        const head = headAbove(all, top);
        const body: TLine[] = [];
        for (const l of below) {
          const lastY = body.length ? body[body.length - 1]!.y1 : top.y1;
          if (l.y0 - lastY > l.size * 1.6 || isProse(l, top) || isTableCaptionStart(l.pieces[0]!.text)) break;
          body.push(l);
        }
        if (!head.length) continue;
        region = [...head, ...body];
        headerEnd = top.y1;
      }
      const t = buildTable(
        region,
        headerEnd,
        top,
        hs.filter((r) => r !== headRule && isCmidrule(r, top)),
        words,
      );
      if (!t) continue;
      for (const r of fam) used.add(r);
      for (const i of t.spanIndices) taken.add(i);
      out.push(t);
    }
  }
  out.push(...captionTables(spans, taken, pageWidth, words));
  return out;
}

/** A shorter rule inside the table's width: a cmidrule under a spanning header cell. */
function isCmidrule(r: Rule, top: Rule): boolean {
  return r.x1 - r.x0 < top.x1 - top.x0 - 8 && r.x0 >= top.x0 - 2 && r.x1 <= top.x1 + 2;
}

/**
 * Tables with no rules at all under a "Table N" caption (word processors often draw none): the
 * caption says a table follows, so the aligned lines under it are read like a ruled table whose
 * first line is the header. Prose under a caption fails the table test and stays text.
 */
function captionTables(spans: TextSpan[], taken: Set<number>, pageWidth: number, words: PageWords): HruleTable[] {
  const out: HruleTable[] = [];
  const free = spans
    .map((_, i) => i)
    .filter((i) => !taken.has(i) && spans[i]!.text.trim() && (spans[i]!.dir ?? 'ltr') !== 'ttb');
  const all = linesIn(spans, free);
  for (let k = 0; k < all.length; k++) {
    const cap = all[k]!;
    // Only a caption proper ("Table 3:", "Table 3."), not a sentence that starts "Table 1 shows".
    if (cap.pieces.length !== 1 || !isTableCaptionLine(cap.pieces[0]!.text)) continue;
    const body: TLine[] = [];
    for (let j = k + 1; j < all.length; j++) {
      const l = all[j]!;
      const last = body.length ? body[body.length - 1]! : cap;
      // A gap clearly wider than the rows' own spacing ends the table (the next one starts).
      const rowGap = body.length >= 2 ? body[1]!.y0 - body[0]!.y1 : Infinity;
      if (l.y0 - last.y1 > Math.max(l.size * 0.9, rowGap * 2.2) && body.length >= 2) break;
      if (
        l.y0 - last.y1 > l.size * 1.6 ||
        Math.abs(l.size - cap.size) > cap.size * 0.25 ||
        isTableCaptionStart(l.pieces[0]!.text)
      )
        break;
      if (
        l.pieces.length === 1 &&
        l.pieces[0]!.text.split(' ').length >= 6 &&
        l.pieces[0]!.x1 - l.pieces[0]!.x0 > pageWidth * 0.45
      )
        break;
      if (l.pieces.some((p) => p.spans.some((i) => taken.has(i)))) break;
      body.push(l);
    }
    if (body.length < 3) continue;
    const x0 = Math.min(...body.flatMap((l) => l.pieces.map((p) => p.x0)));
    const x1 = Math.max(...body.flatMap((l) => l.pieces.map((p) => p.x1)));
    if (proseColumns(body, pageWidth)) continue;
    const top: Rule = { x0: x0 - 1, x1: x1 + 1, y0: cap.y1, y1: cap.y1 };
    const t = buildTable(body, (body[0]!.y1 + body[1]!.y0) / 2, top, [], words);
    if (!t) continue;
    for (const i of t.spanIndices) taken.add(i);
    out.push(t);
    k += body.length;
  }
  return out;
}

/**
 * Text columns, not a table: on a multi-column page a caption set in one column has the lines of
 * the other column beside it, and justified text splits into word pieces at its wide spaces, so
 * the lines under the caption read like a table. Pieces closer than 2 em are one run (justified
 * word spaces stay under ~1.2 em); a run of four or more words with letters, a third of the page
 * wide, is a line of prose. Mostly prose lines = text; a table's rows (cells apart, numbers,
 * short labels) are not.
 */
function proseColumns(body: TLine[], pageWidth: number): boolean {
  let prose = 0;
  for (const l of body) {
    const ps = [...l.pieces].sort((a, b) => a.x0 - b.x0);
    let run: Piece[] = [];
    const isProseRun = (r: Piece[]) =>
      r.length > 0 &&
      r[r.length - 1]!.x1 - r[0]!.x0 >= pageWidth * 0.3 &&
      r.flatMap((p) => p.text.trim().split(/\s+/)).filter((w) => /\p{L}{2}/u.test(w)).length >= 4;
    let found = false;
    for (const p of ps) {
      if (run.length && p.x0 - run[run.length - 1]!.x1 > l.size * 2) {
        found ||= isProseRun(run);
        run = [];
      }
      run.push(p);
    }
    found ||= isProseRun(run);
    if (found) prose++;
  }
  return prose >= body.length * 0.6;
}

/** Rules drawn cell by cell (browsers draw each cell's border) joined into one rule per line. */
function mergePieces(rs: Rule[]): Rule[] {
  const sorted = [...rs].sort((a, b) => a.y0 - b.y0 || a.x0 - b.x0);
  const out: Rule[] = [];
  for (const r of sorted) {
    const last = out.find(
      (o) => Math.abs(o.y0 - r.y0) < 0.6 && Math.abs(o.y1 - r.y1) < 0.6 && r.x0 <= o.x1 + 1.5 && r.x1 >= o.x0 - 1.5,
    );
    if (last) {
      last.x0 = Math.min(last.x0, r.x0);
      last.x1 = Math.max(last.x1, r.x1);
    } else out.push({ ...r });
  }
  return out.sort((a, b) => a.y0 - b.y0);
}

/**
 * Header lines set right above a rule (the rule underlines them): lines close together, up to a
 * gap, a sentence (the paragraph before), prose or a caption. Top to bottom.
 */
function headAbove(all: TLine[], top: Rule): TLine[] {
  const above = all.filter((l) => l.y1 <= top.y0 + 1).reverse();
  const head: TLine[] = [];
  for (const l of above) {
    const lastY = head.length ? head[head.length - 1]!.y0 : top.y0;
    const sentence =
      l.pieces.length === 1 && /[.;:]$/.test(l.pieces[0]!.text) && l.pieces[0]!.text.split(' ').length >= 4;
    if (lastY - l.y1 > l.size * 0.8 || isProse(l, top) || sentence || isTableCaptionStart(l.pieces[0]!.text)) break;
    head.push(l);
  }
  return head.reverse();
}

/**
 * Rows under a table's last rule: a totals row set right under a (double) rule, or a
 * statement's bookings going on under the rule that closes its opening balance. A line goes on
 * with the table when two of its pieces line up with the table's cells (a left edge, a right
 * edge or a centre within 2.5 pt), or, right under such a row, when it is one piece starting at
 * a cell's left edge (the booking's detail lines). A caption, a note (one piece right under the
 * rule) or a paragraph (prose across the table) ends it.
 */
function tailBelow(all: TLine[], bottom: Rule, table: TLine[]): TLine[] {
  const x0s = table.flatMap((l) => l.pieces.map((p) => p.x0));
  const x1s = table.flatMap((l) => l.pieces.map((p) => p.x1));
  const cs = table.flatMap((l) => l.pieces.map((p) => (p.x0 + p.x1) / 2));
  const near = (v: number, vs: number[], tol: number) => vs.some((w) => Math.abs(w - v) <= tol);
  const out: TLine[] = [];
  let lastRow = false;
  for (const l of all.filter((x) => x.y0 >= bottom.y1 - 1)) {
    const lastY = out.length ? out[out.length - 1]!.y1 : bottom.y1;
    const gap = l.y0 - lastY;
    if (isTableCaptionStart(l.pieces[0]!.text) || isProse(l, bottom)) break;
    const aligned = l.pieces.filter(
      (p) => near(p.x0, x0s, 2.5) || near(p.x1, x1s, 2.5) || near((p.x0 + p.x1) / 2, cs, 2.5),
    ).length;
    const row = l.pieces.length >= 2 && aligned >= 2;
    const detail: boolean = !row && l.pieces.length === 1 && lastRow && near(l.pieces[0]!.x0, x0s, 1.5);
    if (row ? gap > l.size * (out.length ? 2.2 : 1) : !detail || gap > l.size * 0.8) break;
    out.push(l);
    for (const p of l.pieces) {
      x0s.push(p.x0);
      x1s.push(p.x1);
      cs.push((p.x0 + p.x1) / 2);
    }
    lastRow = row || detail;
  }
  return out;
}

const NUMERIC = /^[\d.,%+\-−()\s$€£]*\d[\d.,%+\-−()\s$€£]*$/;

/**
 * A title between two tables, not a row: one piece centred on the rules' width, away from the
 * first column, set larger or bold ("Sales Restructuring" over the invoice's second table).
 */
function isTitleLine(l: TLine, top: Rule, mid: TLine[]): boolean {
  if (l.pieces.length !== 1) return false;
  const p = l.pieces[0]!;
  const w = top.x1 - top.x0;
  const centred = Math.abs((p.x0 + p.x1) / 2 - (top.x0 + top.x1) / 2) < w * 0.06 && p.x0 > top.x0 + w * 0.15;
  const sizes = mid.map((x) => x.size).sort((a, b) => a - b);
  const body = sizes[Math.floor(sizes.length / 2)]!;
  return centred && (l.size > body * 1.08 || p.bold) && /\p{L}{2}/u.test(p.text) && !NUMERIC.test(p.text);
}

function isProse(l: TLine, top: Rule): boolean {
  // One long run of words across most of the table's width is a sentence, not a row.
  return (
    l.pieces.length === 1 &&
    l.pieces[0]!.x1 - l.pieces[0]!.x0 > (top.x1 - top.x0) * 0.7 &&
    l.pieces[0]!.text.split(' ').length >= 6
  );
}

/**
 * Rows padded apart, lines inside a row set solid (a bank statement's bookings: date, text and
 * amount on the first line, the booking's details under it): the gaps fall in two groups, and
 * the lines after the small gaps add no second number to a number column (they go on with the
 * row). Returns the largest gap inside a row, or undefined when rows are set solid — then
 * every line whose numbers stack under the row above's numbers is a row (an invoice's items,
 * subtotal and VAT lines one under another, a blank line only before a subtotal).
 */
function paddedRows(body: TLine[], gaps: number[], cols: [number, number][], size: number): number | undefined {
  const sorted = gaps.map((g) => Math.max(g, 0.5)).sort((a, b) => a - b);
  let cut = -1;
  for (let k = 0; k + 1 < sorted.length; k++)
    if (
      sorted[k + 1]! >= sorted[k]! * 2 &&
      sorted[k + 1]! - sorted[k]! > size * 0.4 &&
      (cut < 0 || sorted[k + 1]! / sorted[k]! > sorted[cut + 1]! / sorted[cut]!)
    )
      cut = k;
  if (cut < 0) return undefined;
  const inner = sorted[cut]!;
  const numCols = (l: TLine) =>
    new Set(
      l.pieces
        .filter((p) => NUMERIC.test(p.text))
        .map((p) => colOf(p, cols)[0]!)
        .filter((c) => c > 0),
    );
  let small = 0;
  let stacked = 0;
  let group = new Set<number>();
  body.forEach((l, k) => {
    const mine = numCols(l);
    if (k === 0 || Math.max(gaps[k - 1]!, 0.5) > inner) {
      group = mine;
      return;
    }
    small++;
    if ([...mine].some((c) => group.has(c))) stacked++;
    for (const c of mine) group.add(c);
  });
  return small > 0 && stacked <= small * 0.2 ? inner + 0.01 : undefined;
}

interface Row {
  cells: string[][];
  full: boolean[];
  span: (number[] | undefined)[];
  y0: number;
  y1: number;
  x0: number;
}

function emptyRow(l: TLine, cols: [number, number][]): Row {
  const C = cols.length;
  return {
    cells: Array.from({ length: C }, () => []),
    full: Array(C).fill(false),
    span: Array(C).fill(undefined),
    y0: l.y0,
    y1: l.y1,
    x0: Math.min(...l.pieces.filter((p) => colOf(p, cols)[0] === 0).map((p) => p.x0)),
  };
}

/**
 * Header rows: lines above the header rule. A line with a cell spanning columns (or a cmidrule
 * under it) is a header row of its own, and the lines under it that go on with its cells join
 * them; other lines are one row with broken cells.
 */
function headerRows(head: TLine[], cols: [number, number][], cmid: Rule[], words: PageWords, widest: number[]): Row[] {
  const headRows: Row[] = [];
  const newRow = (l: TLine): Row => emptyRow(l, cols);
  let merged: Row | undefined;
  // The row a spanning line made: the lines under it that continue its cells join them.
  let spanRow: SpanRow | undefined;
  head.forEach((l) => {
    if (continueSpanRow(l, spanRow, cmid, words)) return;
    spanRow = undefined;
    const spanning =
      l.pieces.some((p) => headCols(p, cols, head).length > 1) ||
      cmid.some((r) => r.y0 > l.y1 - 1 && r.y0 < l.y1 + l.size * 0.9);
    if (spanning) {
      const row = newRow(l);
      const at = new Map<Piece, number>();
      for (const p of l.pieces) {
        const cs = headCols(p, cols, head);
        row.cells[cs[0]!]!.push(p.text);
        at.set(p, cs[0]!);
        if (cs.length > 1) row.span[cs[0]!] = cs;
      }
      headRows.push(row);
      spanRow = { cells: row.cells, line: l, cols: at };
      merged = undefined;
      return;
    }
    merged ??= (() => {
      const r = newRow(l);
      headRows.push(r);
      return r;
    })();
    for (const p of l.pieces) {
      const c = colOf(p, cols)[0]!;
      const cell = merged.cells[c]!;
      const joined = joinCell(cell.join(' '), p.text, merged.full[c]!, words);
      cell.length = 0;
      cell.push(joined);
      merged.full[c] = p.x1 - p.x0 >= widest[c]! * 0.85;
    }
  });
  return headRows;
}

/** A spanning header row's cells, its last line, and the cell each piece of that line went to. */
interface SpanRow {
  cells: string[][];
  line: TLine;
  cols: Map<Piece, number>;
}

/**
 * Joins header line `l` to the cells of the spanning header row above it when it goes on with
 * them (a multi-line header cell, spanHeads.ts `continuedPieces`); false when it is a row of its own.
 */
function continueSpanRow(l: TLine, at: SpanRow | undefined, cmid: Rule[], words: PageWords): boolean {
  const under = at ? continuedPieces(l, at.line, cmid) : undefined;
  if (!at || !under) return false;
  l.pieces.forEach((p, k) => {
    const c = at.cols.get(under[k]!)!;
    const cell = at.cells[c]!;
    const joined = joinCell(cell.join(' '), p.text, false, words);
    cell.length = 0;
    cell.push(joined);
    at.cols.set(p, c);
  });
  at.line = l;
  return true;
}

function buildTable(
  lines: TLine[],
  headerEnd: number,
  top: Rule,
  cmid: Rule[],
  words: PageWords,
): HruleTable | undefined {
  const head = lines.filter((l) => l.y1 <= headerEnd + 1);
  const body = lines.filter((l) => l.y0 >= headerEnd - 1);
  if (body.length < 2 || lines.length < 3) return undefined;
  const cols = columns(body, top.x0 - 2, top.x1 + 2);
  if (cols.length < 2) return undefined;
  const gaps = body.slice(1).map((l, k) => l.y0 - body[k]!.y1);
  const size = body.reduce((a, l) => a + l.size, 0) / body.length;
  const padded = paddedRows(body, gaps, cols, size);
  // Most body rows must have several short cells: the table test. A row is a line, or, where
  // rows are padded apart, the lines set solid under a row's first line (its details).
  const starts = body.filter((_, k) => k === 0 || padded === undefined || gaps[k - 1]! > padded);
  const multi = starts.filter((l) => l.pieces.length >= 2).length;
  if (multi < Math.max(2, starts.length * 0.5)) return undefined;
  const pieces = body.flatMap((l) => l.pieces);
  // Long runs of words are prose, unless they are a description list's descriptions: every
  // line a short term (three words at most) and its description in the last column (a manual's
  // table of flags, one per ruled row). Prose set in two columns has long runs in both.
  const long = pieces.filter((p) => p.text.length > 60);
  const described =
    body.every((l) => l.pieces.length >= 2 && l.pieces[0]!.text.split(' ').length <= 3) &&
    long.every((p) => colOf(p, cols)[0] === cols.length - 1);
  if (long.length > pieces.length * 0.15 && !described) return undefined;
  // Code between rules (a framed listing) is code.
  if (pieces.filter((p) => p.mono).length >= pieces.length * 0.5) return undefined;
  const C = cols.length;
  const widest = cols.map((_, k) =>
    Math.max(
      0,
      ...lines.flatMap((l) =>
        l.pieces.filter((p) => colOf(p, cols).length === 1 && colOf(p, cols)[0] === k).map((p) => p.x1 - p.x0),
      ),
    ),
  );

  // Body rows: a line continues the row above when it leaves the first column empty (wrapped
  // cells in other columns) or when rows are padded and it sits tighter than rows do.
  const rows: Row[] = [];
  const newRow = (l: TLine): Row => emptyRow(l, cols);
  const firstX = (r: Row) => r.x0;
  body.forEach((l, k) => {
    const gap = k > 0 ? gaps[k - 1]! : Infinity;
    const hasFirst = l.pieces.some((p) => colOf(p, cols)[0] === 0);
    const prev = rows[rows.length - 1];
    const prevFirst = prev ? prev.cells[0]!.length > 0 : false;
    const tight = padded !== undefined && gap <= padded;
    // Wrapped text goes on in cells that were full; a line with a number or a cell in a column
    // whose cell above was not full is a row of its own (a row under a group label).
    const wraps =
      prev !== undefined &&
      l.pieces.every((p) => {
        const c = colOf(p, cols)[0]!;
        return (
          prev.full[c] === true &&
          !/^[\d.,%+\-−()\s]+$/.test(p.text) &&
          !/^[\d.,%+\-−()\s]+$/.test(prev.cells[c]!.join(' '))
        );
      });
    // A label wrapped in the first column: the line holds only a first-column piece that goes
    // on with the label above (starts in lower case, the label above ends mid-phrase, or it
    // filled its column: LibreOffice's "Baseline / A" in a narrow first column).
    const labelWrap =
      prev !== undefined &&
      prevFirst &&
      l.pieces.length === 1 &&
      hasFirst &&
      gap < size * 0.5 &&
      Math.abs(l.pieces[0]!.x0 - firstX(prev)) < size * 0.5 &&
      (/^\p{Ll}/u.test(l.pieces[0]!.text) ||
        prev.full[0] === true ||
        /[-‐,&/]$|\b(?:and|or|of|the|for|in|to|with)$/.test(prev.cells[0]!.join(' ')));
    const cont =
      prev !== undefined &&
      ((!hasFirst && prevFirst && gap < size * 0.8 && l.pieces.length < C && wraps) || tight || labelWrap);
    const row = cont ? prev! : newRow(l);
    if (!cont) rows.push(row);
    row.y1 = l.y1;
    for (const p of l.pieces) {
      const cs = colOf(p, cols);
      const c = cs[0]!;
      const cell = row.cells[c]!;
      const joined = joinCell(cell.join(' '), p.text, row.full[c]!, words);
      cell.length = 0;
      cell.push(joined);
      row.full[c] = p.x1 - p.x0 >= widest[c]! * 0.85;
      if (cs.length > 1) row.span[c] = cs;
    }
  });

  const headRows = headerRows(head, cols, cmid, words, widest);
  const toOtsl = (r: Row, header: boolean): OtslCell[] => {
    const out: OtslCell[] = [];
    for (let c = 0; c < C; c++) {
      if (out[c]) continue;
      const text = r.cells[c]!.join(' ').trim();
      out[c] = text ? { tag: header ? 'ched' : 'fcel', text } : { tag: 'ecel', text: '' };
      const sp = r.span[c];
      if (sp) for (const k of sp) if (k > c) out[k] = { tag: 'lcel', text: '' };
    }
    return out;
  };
  const otsl = [...headRows.map((r) => toOtsl(r, true)), ...rows.map((r) => toOtsl(r, false))];
  if (otsl.length < 2) return undefined;
  const spanIndices = lines.flatMap((l) => l.pieces.flatMap((p) => p.spans));
  const bbox = {
    x0: Math.min(top.x0, ...lines.map((l) => Math.min(...l.pieces.map((p) => p.x0)))),
    y0: Math.min(top.y0, ...lines.map((l) => l.y0)),
    x1: Math.max(top.x1, ...lines.map((l) => Math.max(...l.pieces.map((p) => p.x1)))),
    y1: Math.max(...lines.map((l) => l.y1)),
  };
  return { bbox, rows: otsl, headerRows: headRows.length, spanIndices };
}
