/**
 * Narrow columns of tables found by alignment (issue 40, class 4). One run holding two cells'
 * words ("Destroyed Damaged": a typed table's header cells one space apart over columns of
 * figures) covered the body's column gap, so two columns became one and the header line was
 * left out of the table. `splitAtColumnGaps` cuts such a run at the word space that falls in a
 * white gap the lines around it leave open, when the part after the space starts where that
 * column's cells start (or the part before it ends where they end). A heading centred over two
 * columns ("Year ended 31 March") has no word on a column's edge and stays whole.
 *
 * Word positions are estimated from the run's box and its characters, counted from the run's
 * right end: producers give a leading space no width (LibreOffice's " Destroyed Damaged" is 17
 * characters wide, Chromium's " 9,412" five).
 */
import type { TextSpan } from '../../model/content';
import type { Piece, RunLine as Line } from './runLine';

/** A word space is narrower than this many font sizes (align.ts's PROSE_GAP_EM). */
const PROSE_GAP_EM = 1.2;

/** Lines within this many line heights of a piece are the neighbours whose gaps count. */
const NEIGHBOUR_LINES = 6;

/**
 * Pieces that are one span of several words, cut at a word space lying in a white gap of the
 * neighbouring lines, when a part lines up with the cells on its side of the gap.
 */
export function splitAtColumnGaps<L extends Line>(ls: L[], spans: TextSpan[], minGap: (l: L) => number): L[] {
  return ls.map((l, k) => {
    const h = l.y1 - l.y0;
    const around = ls.filter(
      (o, j) => j !== k && Math.abs((o.y0 + o.y1) / 2 - (l.y0 + l.y1) / 2) < NEIGHBOUR_LINES * Math.max(h, 1),
    );
    if (around.length < 2) return l;
    let changed = false;
    const pieces = l.pieces.flatMap((p) => {
      const s = p.spans.length === 1 ? spans[p.spans[0]!]! : undefined;
      const cuts = s ? cutPoints(p, s, around, minGap(l)) : [];
      if (!cuts.length) return [p];
      changed = true;
      const out: Piece[] = [];
      let from = 0;
      let x0 = p.x0;
      for (const c of cuts) {
        out.push(part(p, x0, c.x0, s!.text.slice(from, c.at)));
        from = c.at;
        x0 = c.x1;
      }
      out.push(part(p, x0, p.x1, s!.text.slice(from)));
      return out;
    });
    const joined = joinOrphans(pieces, around, PROSE_GAP_EM * l.size);
    return changed || joined.length < pieces.length ? { ...l, pieces: joined } : l;
  });
}

/**
 * The other way round: a piece a word space after the one before it, with nothing of the lines
 * around under it, heads no column of its own; it is the rest of that header ("Vans" + "checked"
 * over the column of "41", "26"). Joined to the piece before it.
 */
function joinOrphans(pieces: Piece[], around: Line[], maxGap: number): Piece[] {
  const all = around.flatMap((o) => o.pieces);
  const out: Piece[] = [];
  for (const p of pieces) {
    const prev = out[out.length - 1];
    const orphan = !all.some((q) => q.x1 > p.x0 && q.x0 < p.x1);
    if (prev && orphan && p.x0 - prev.x1 < maxGap && !p.numeric) {
      out[out.length - 1] = {
        ...prev,
        x1: Math.max(prev.x1, p.x1),
        spans: [...new Set([...prev.spans, ...p.spans])],
        chars: prev.chars + 1 + p.chars,
        alnum: prev.alnum + p.alnum,
        numeric: false,
      };
    } else out.push(p);
  }
  return out;
}

function part(p: Piece, x0: number, x1: number, text: string): Piece {
  const t = text.trim();
  return {
    ...p,
    x0,
    x1,
    chars: t.length,
    alnum: (t.match(/[\p{L}\p{N}]/gu) ?? []).length,
    numeric: /^\s*[-+−(]?\d[\d.,]*%?\)?\s*$/.test(t),
    marker: false,
  };
}

/** Where to cut piece p (its one span s): text indices and the ink edges either side, left to right. */
function cutPoints(p: Piece, s: TextSpan, around: Line[], minGap: number): { at: number; x0: number; x1: number }[] {
  const cuts: { at: number; x0: number; x1: number }[] = [];
  if (!/\S\s+\S/.test(s.text.trim())) return cuts;
  // The neighbours' pieces; p must hold one of them in its reach (it runs over a column).
  const all = around.flatMap((o) => o.pieces);
  if (!all.some((q) => q.x0 >= p.x0 - 1 && q.x1 <= p.x1 + 1)) return cuts;
  const cover = all.filter((q) => q.x1 > p.x0 && q.x0 < p.x1);
  const text = s.text.trimEnd();
  const w = (s.bbox.x1 - s.bbox.x0) / Math.max(1, text.trim().length);
  const tol = Math.max(2, 0.6 * s.fontSize);
  for (const m of text.matchAll(/\s+/g)) {
    const at = m.index!;
    if (text.slice(0, at).trim() === '') continue;
    // The space's ink-free extent, counted back from the run's right end.
    const sx1 = s.bbox.x1 - (text.length - at - m[0].length) * w;
    const sx0 = sx1 - m[0].length * w;
    // No neighbour crosses the space: a gap of the lines around.
    if (cover.some((q) => q.x0 < sx1 - 1 && q.x1 > sx0 + 1)) continue;
    const leftQ = all.filter((q) => q.x1 <= sx0 + 1);
    const rightQ = all.filter((q) => q.x0 >= sx1 - 1);
    if (!leftQ.length || !rightQ.length) continue;
    const gap = Math.min(...rightQ.map((q) => q.x0)) - Math.max(...leftQ.map((q) => q.x1));
    if (gap < minGap) continue;
    const startsColumn = Math.abs(sx1 - Math.min(...rightQ.map((q) => q.x0))) <= tol;
    const endsColumn = Math.abs(sx0 - Math.max(...leftQ.map((q) => q.x1))) <= tol;
    if (startsColumn || endsColumn) cuts.push({ at, x0: sx0, x1: sx1 });
  }
  return cuts;
}
