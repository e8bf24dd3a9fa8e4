/**
 * Spanning headers of stacked multi-line headers (issue 40, class 4): a group heading ("2024",
 * "Year ended") centred over two or more sub-headings on a header line below it ("Metered
 * volume", "Estimated volume") spans their columns. Read from the sub-headings, not from the
 * body's columns: body figures are set flush right, so the heading's centre lies well left of
 * the middle of their columns, while it lies on the middle of the sub-headings it heads.
 *
 * The sub-headings a heading may own are those nearer to it than to any other heading of its
 * line ("2024" and "2025" side by side each own their pair); of those, a run of two or more
 * adjacent ones whose joint extent is centred under the heading and holds it. A heading over one
 * piece only (the first line of a cell set on two, "Tokens" over "per second") spans nothing.
 */

interface Box {
  x0: number;
  x1: number;
}

interface HeadLine<P extends Box> {
  y0: number;
  y1: number;
  pieces: P[];
}

/** The heading's centre lies within this share of the sub-headings' joint width of their centre. */
const CENTRE_SHARE = 0.1;

/**
 * The sub-headings under `p` (a piece of `line`, one of the header's lines `head`) that it spans,
 * left to right; undefined when it heads fewer than two.
 */
export function subheadings<P extends Box>(p: P, line: HeadLine<P>, head: HeadLine<P>[]): P[] | undefined {
  const mid = (b: Box) => (b.x0 + b.x1) / 2;
  const c = mid(p);
  const siblings = line.pieces.filter((q) => q !== p).map(mid);
  // Nearer to p than to any sibling: p's reach on the lines below.
  const lo = Math.max(-Infinity, ...siblings.filter((x) => x < c).map((x) => (x + c) / 2));
  const hi = Math.min(Infinity, ...siblings.filter((x) => x > c).map((x) => (x + c) / 2));
  const below = head.filter((l) => l.y0 >= line.y1 - 1).sort((a, b) => a.y0 - b.y0);
  for (const l of below) {
    const mine = l.pieces
      .filter((q) => mid(q) > lo && mid(q) < hi)
      .slice()
      .sort((a, b) => a.x0 - b.x0);
    if (mine.length === 0) continue;
    // The nearest line with text under p decides: the first line of a two-line cell under it
    // ("Change" over "2024–25") is not a group of sub-headings.
    let best: P[] | undefined;
    let bestOff = Infinity;
    for (let a = 0; a < mine.length; a++)
      for (let b = a + 1; b < mine.length; b++) {
        const x0 = mine[a]!.x0;
        const x1 = mine[b]!.x1;
        if (p.x0 < x0 - 1 || p.x1 > x1 + 1) continue;
        const off = Math.abs((x0 + x1) / 2 - c);
        if (off <= CENTRE_SHARE * (x1 - x0) && off < bestOff) {
          best = mine.slice(a, b + 1);
          bestOff = off;
        }
      }
    return best;
  }
  return undefined;
}
