/**
 * Line numbers in a side margin (issue 40, class 5): a draft or review manuscript (LaTeX's
 * lineno, AASTeX's and elsarticle's review options, a pleading paper) numbers every text line in
 * the margin. Each number is a line unit of its own; left in the body, every number became a
 * block between two lines of a paragraph, and the paragraph broke at each one.
 *
 * What a reader sees, not a phrase: a column of bare integers outside the text block (clear of
 * every other body line on that side), counting up down the page, each beside a text line, and
 * as many as the text rows beside them. Look-alikes that stay body text:
 * - numbered paragraphs or a bare-numbered list hanging in the margin: one number per paragraph,
 *   so far fewer numbers than text rows;
 * - a code listing's numbers (listings' `numbers=left` sets them in the margin too): the lines
 *   they stand beside are all monospaced, and the numbers are part of the listing;
 * - a page number or a lone figure in the margin: fewer than MIN_NUMBERS;
 * - a table's first column of counts: inside the text block, not clear of it.
 */
import type { PageUnit } from './state';

/** A run of line numbers has at least this many numbers. */
const MIN_NUMBERS = 5;
/** Numbers stand at least this far (points) outside every other body line on their side. */
const CLEARANCE = 2;
/** At least this share of the numbers stands beside a text line (centres within half a line height)… */
const MIN_ALIGNED = 0.8;
/** …and there is at least this share of a number per text row beside the run (lineno numbers every row). */
const MIN_ROW_COVER = 0.6;
/** At least this share of the steps between successive numbers is the run's common step. */
const MIN_REGULAR_STEPS = 0.8;

type LineUnit = Extract<PageUnit, { kind: 'line' }>;

const isNumber = (u: PageUnit): u is LineUnit => bareNumber(u);

function bareNumber(u: PageUnit): boolean {
  return u.kind === 'line' && !u.rotated && /^\d{1,4}$/.test(u.line.text.trim());
}

/** The units of `units` (upright body lines) that are margin line numbers. */
export function marginLineNumbers(units: readonly PageUnit[], pageWidth: number): PageUnit[] {
  const numbers = units.filter(isNumber);
  if (numbers.length < MIN_NUMBERS) return [];
  // Text lines that are not numbers: a number clear of all of them on its side is in the margin.
  const text = units.filter((u) => u.kind === 'line' && !u.rotated && !bareNumber(u));
  if (text.length < MIN_NUMBERS) return [];
  const found: PageUnit[] = [];
  for (const side of ['left', 'right'] as const) {
    const edge = side === 'left' ? Math.min(...text.map((u) => u.bbox.x0)) : Math.max(...text.map((u) => u.bbox.x1));
    const run = numbers
      .filter((u) => (side === 'left' ? u.bbox.x1 <= edge - CLEARANCE : u.bbox.x0 >= edge + CLEARANCE))
      .sort((a, b) => a.bbox.y0 - b.bbox.y0);
    const step = run.length >= MIN_NUMBERS ? countingStep(run) : undefined;
    if (!step) continue;
    const beside = (n: PageUnit) => {
      const h = n.bbox.y1 - n.bbox.y0;
      const c = (n.bbox.y0 + n.bbox.y1) / 2;
      return text.filter((u) => Math.abs((u.bbox.y0 + u.bbox.y1) / 2 - c) <= h / 2);
    };
    const aligned = run.filter((n) => beside(n).length > 0);
    if (aligned.length < MIN_ALIGNED * run.length) continue;
    // A listing's numbers belong to the listing.
    if (aligned.every((n) => beside(n).every((u) => u.kind === 'line' && u.line.monospace))) continue;
    // Text rows beside the run: lines on the run's half of the page, between its first and last number.
    const top = run[0]!.bbox.y0;
    const bottom = run[run.length - 1]!.bbox.y1;
    const half = (u: PageUnit) => (side === 'left' ? u.bbox.x0 < pageWidth / 2 : u.bbox.x1 > pageWidth / 2);
    const rows = textRows(
      text.filter((u) => half(u) && (u.bbox.y0 + u.bbox.y1) / 2 >= top && (u.bbox.y0 + u.bbox.y1) / 2 <= bottom),
    );
    if (run.length * step < MIN_ROW_COVER * rows) continue;
    found.push(...run);
  }
  return found;
}

/** The step the numbers count up by down the page (1, or 5 when every 5th line is numbered); undefined when they do not. */
function countingStep(run: readonly LineUnit[]): number | undefined {
  const values = run.map((u) => Number(u.line.text.trim()));
  const steps = values.slice(1).map((v, i) => v - values[i]!);
  if (steps.some((s) => s <= 0)) return undefined;
  const counts = new Map<number, number>();
  for (const s of steps) counts.set(s, (counts.get(s) ?? 0) + 1);
  const [step, n] = [...counts].reduce((a, b) => (b[1] > a[1] ? b : a));
  return n >= MIN_REGULAR_STEPS * steps.length ? step : undefined;
}

/** Lines grouped into rows: a line whose centre is within half a height of the row's last line joins it. */
function textRows(lines: readonly PageUnit[]): number {
  const sorted = [...lines].sort((a, b) => a.bbox.y0 + a.bbox.y1 - (b.bbox.y0 + b.bbox.y1));
  let rows = 0;
  let last: PageUnit | undefined;
  for (const u of sorted) {
    const c = (u.bbox.y0 + u.bbox.y1) / 2;
    if (!last || c - (last.bbox.y0 + last.bbox.y1) / 2 > (last.bbox.y1 - last.bbox.y0) / 2) {
      rows++;
      last = u;
    }
  }
  return rows;
}
