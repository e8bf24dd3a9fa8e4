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

interface RuleBox {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

/** A header's words: no figure but a year ("2024"), which heads a column as often as it fills one. */
const FIGURE_RE = /^[-+−(]?[$€£]?\d[\d.,]*%?\)?$/;

/**
 * The rule closing a stacked header when it does not run the table's full width: a cell that
 * spans the header's rows ("Ward" beside "Spring"/"Autumn" and their sub-headings) has no
 * border under its top row, so the rule under the header's last row stops at that cell's edge.
 * The highest rule between `top` and `bottom` covering most of the table's width, with one to
 * four lines of words above it and two lines or more below it; undefined when there is none.
 */
export function partialHeaderRule<L extends { y0: number; y1: number; pieces: { text: string }[] }>(
  rules: RuleBox[],
  top: RuleBox,
  bottom: RuleBox,
  region: L[],
): RuleBox | undefined {
  const width = top.x1 - top.x0;
  const inside = rules
    .filter(
      (r) =>
        r.y0 > top.y1 + 2 &&
        r.y1 < bottom.y0 - 2 &&
        r.x1 - r.x0 >= 0.6 * width &&
        r.x0 >= top.x0 - 2 &&
        r.x1 <= top.x1 + 2,
    )
    .sort((a, b) => a.y0 - b.y0);
  for (const r of inside) {
    const above = region.filter((l) => l.y1 <= r.y0 + 1);
    const below = region.filter((l) => l.y0 >= r.y1 - 1);
    if (above.length < 1 || above.length > 4 || below.length < 2) continue;
    const words = above.every((l) =>
      l.pieces.every((p) => !FIGURE_RE.test(p.text.trim()) || /^\d{4}$/.test(p.text.trim())),
    );
    return words ? r : undefined;
  }
  return undefined;
}

interface TextBox extends Box {
  text: string;
}

/**
 * A header line that goes on with the cells of the line above it (multi-line header cells:
 * "Percentage of / targets with / segment in" beside "Total number / of trials per /
 * participant"): set solid under it (less than half a line apart), no rule between them, and
 * each of its pieces under one piece of the line above, overlapping at least half of the
 * narrower. Returns, per piece of `l`, the piece above it; undefined when `l` is a row of its own
 * (the sub-headings under a rule, "Onset" and "Coda" under their group).
 */
export function continuedPieces<P extends TextBox>(
  l: HeadLine<P> & { size: number },
  above: HeadLine<P>,
  rules: RuleBox[],
): P[] | undefined {
  if (l.y0 - above.y1 > 0.5 * l.size || l.y0 < above.y1 - 1) return undefined;
  if (rules.some((r) => r.y0 >= above.y1 - 1 && r.y1 <= l.y0 + 1 && r.x1 > l.pieces[0]!.x0 - 2)) return undefined;
  const out: P[] = [];
  for (const p of l.pieces) {
    const q = above.pieces.find(
      (a) => Math.min(a.x1, p.x1) - Math.max(a.x0, p.x0) >= 0.5 * Math.min(a.x1 - a.x0, p.x1 - p.x0),
    );
    if (!q) return undefined;
    out.push(q);
  }
  return out;
}
