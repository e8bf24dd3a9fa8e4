/**
 * Alignment blocks that are laid-out text, not tables (issue 31, class 4). Column alignment alone
 * cannot tell a grid of cells from text set side by side; what the cells say can:
 *
 * - **Text columns**: newspaper columns, or "stat blocks" (a big number over a description that
 *   wraps in its own narrow column, three blocks in a row). Each column reads on from one line
 *   to the next: a line ends mid-sentence or on a hyphen ("Lo-" / "rem ipsum") and the next line
 *   goes on in lower case, the break falling where the next word would not have fitted. A table
 *   row is a record: its cells end where their content ends, and a wrapped cell is one column's
 *   business while the others stay empty. Two or more columns that keep wrapping, filled on most
 *   lines, are text columns.
 * - **Column-major lists**: a numbered list flowed into two columns (01–04 on the left, 05–08 on
 *   the right). The numbers run down the first column and go on at the top of the next; a table
 *   with two number columns numbers across its rows (1 | 2, 3 | 4), never down and on.
 *
 * The caller leaves such a block's text to the reading-order stage, with the gutters between its
 * columns (`TextColumns`): the XY-cut reads the columns one after the other there, even though
 * their lines share baselines as a table's rows do (order/xycut.ts `rowAligned`).
 */
import type { TextSpan } from '../../model/content';

export interface BlockPiece {
  x0: number;
  x1: number;
  /** Indices into the page's spans, left to right. */
  spans: number[];
}

export interface BlockLine {
  y0: number;
  y1: number;
  pieces: BlockPiece[];
}

/** A block of text set in columns: its box and the white gutters between its columns (points). */
export interface TextColumns {
  bbox: { x0: number; y0: number; x1: number; y1: number };
  gutters: { x0: number; x1: number }[];
}

interface Cell {
  text: string;
  x0: number;
  x1: number;
}

/** Sentence-ending punctuation (a closing quote or bracket may follow). */
const ENDS_SENTENCE = /[.!?:;]["'”’)\]]*$/;
/** A word broken at the line end: a letter, then a hyphen. */
const HYPHENATED = /\p{L}[-‐­]$/u;
const STARTS_LOWER = /^["'“‘(]*\p{Ll}/u;
/** An item number standing as the cell or opening it ("01", "7.", "(3)", "12 Title"). */
const ITEM_NUMBER = /^\(?(\d{1,3})[.)]?(?:\s|$)/;

/** Per column (by the block's gaps), per line: the text of that line's pieces in the column. */
function columnCells(block: BlockLine[], gaps: [number, number][], spans: TextSpan[]): (Cell | undefined)[][] {
  const bounds = [-Infinity, ...gaps.map(([a, b]) => (a + b) / 2), Infinity];
  const cols: (Cell | undefined)[][] = Array.from({ length: bounds.length - 1 }, () => []);
  for (const [r, l] of block.entries()) {
    for (const p of l.pieces) {
      const c = bounds.findIndex((b, k) => k > 0 && (p.x0 + p.x1) / 2 < b) - 1;
      const text = p.spans
        .map((i) => spans[i]!.text.trim())
        .filter((t) => t !== '')
        .join(' ');
      const had = cols[c]![r];
      cols[c]![r] = had
        ? { text: `${had.text} ${text}`, x0: Math.min(had.x0, p.x0), x1: Math.max(had.x1, p.x1) }
        : { text, x0: p.x0, x1: p.x1 };
    }
  }
  return cols;
}

/**
 * The line break between `upper` and `lower` is a wrap inside running text: the upper line stops
 * mid-sentence (or on a hyphen), the lower goes on in lower case, and the lower line's first word
 * would not have fitted after the upper line within the column's width.
 */
function wraps(upper: Cell, lower: Cell, colX0: number, colX1: number): boolean {
  if (HYPHENATED.test(upper.text)) return true;
  const words = upper.text.split(/\s+/);
  if (words.length < 2 || ENDS_SENTENCE.test(upper.text) || !STARTS_LOWER.test(lower.text)) return false;
  const perChar = (upper.x1 - upper.x0) / Math.max(upper.text.length, 1);
  const first = lower.text.split(/\s+/)[0]!;
  return upper.x1 + perChar * (first.length + 1) > colX1 - 0.02 * (colX1 - colX0);
}

/** Columns of the block that read as running text (their indices), and the filled column count. */
function runningColumns(cols: (Cell | undefined)[][], lines: number): { running: number[]; filled: number } {
  const running: number[] = [];
  let filled = 0;
  for (const [k, col] of cols.entries()) {
    const cells = col.filter((c): c is Cell => c !== undefined);
    if (cells.length >= lines * 0.5) filled++;
    if (cells.length < 3) continue;
    const x0 = Math.min(...cells.map((c) => c.x0));
    const x1 = Math.max(...cells.map((c) => c.x1));
    let pairs = 0;
    let wrapped = 0;
    for (let r = 0; r + 1 < lines; r++) {
      const a = col[r];
      const b = col[r + 1];
      if (!a || !b) continue;
      pairs++;
      if (wraps(a, b, x0, x1)) wrapped++;
    }
    // Most lines of a text column wrap; a paragraph end or a heading line does not.
    if (pairs >= 2 && wrapped >= 2 && wrapped >= pairs * 0.5) running.push(k);
  }
  return { running, filled };
}

/**
 * Two or more columns of running text, filled on most lines: text set in columns. The gutters
 * are the block's gaps that open a running column (a gap inside one, before its hanging
 * numbers, is not a gutter); undefined when the block is not text columns.
 */
export function textColumnGutters(
  block: BlockLine[],
  gaps: [number, number][],
  spans: TextSpan[],
): [number, number][] | undefined {
  const cols = columnCells(block, gaps, spans);
  const { running, filled } = runningColumns(cols, block.length);
  if (running.length < 2 || running.length < filled * 0.5) return undefined;
  return running.filter((k) => k > 0).map((k) => gaps[k - 1]!);
}

/** The item numbers of a column, top to bottom, if every cell of it opens with one. */
function itemNumbers(col: (Cell | undefined)[]): number[] | undefined {
  const cells = col.filter((c): c is Cell => c !== undefined);
  if (cells.length < 2) return undefined;
  const nums: number[] = [];
  for (const c of cells) {
    const m = ITEM_NUMBER.exec(c.text);
    if (!m) return undefined;
    nums.push(Number(m[1]));
  }
  return nums;
}

const consecutive = (ns: number[]) => ns.every((n, k) => k === 0 || n === ns[k - 1]! + 1);

/**
 * A numbered list flowed into columns: two columns whose item numbers each count up by one down
 * the column, the later one starting where the earlier one stopped. The gutters are the gaps
 * before each later numbered column; undefined when the block is not such a list.
 */
export function columnMajorListGutters(
  block: BlockLine[],
  gaps: [number, number][],
  spans: TextSpan[],
): [number, number][] | undefined {
  const numbered = columnCells(block, gaps, spans)
    .map((col, k) => ({ k, ns: itemNumbers(col) }))
    .filter((c): c is { k: number; ns: number[] } => c.ns !== undefined && consecutive(c.ns));
  const out: [number, number][] = [];
  for (let a = 0; a + 1 < numbered.length; a++) {
    const left = numbered[a]!.ns;
    const right = numbered[a + 1]!;
    if (right.k > 0 && right.ns[0] === left[left.length - 1]! + 1) out.push(gaps[right.k - 1]!);
  }
  return out.length > 0 ? out : undefined;
}
