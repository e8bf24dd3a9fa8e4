/**
 * Issue 40, class 5 (furniture on a page alone): a draft's line numbers down the side margin
 * (server/layout/stages/lineNumbers.ts), a running head far over the text and a running foot
 * beside the page number (server/convert/furniture.ts), and a capitalised head centred over its
 * text (server/layout/blocks/index.ts).
 *
 * Real pages, each cut alone as the real-world set cuts it; the checks are the set's own
 * person-checked tests. Before these rules, AASTeX's draft (lineno: a number beside every text
 * line) broke the abstract and the introduction at every line, the German book chapter kept its
 * header "2019/04, Online-Kapitel zum Buch: …" (31 pt over the text) and its foot "Wie kommen Sie
 * zu einem barrierefreien PDF?" (beside the page number "4"), and the DAFx proceedings kept their
 * 105-character conference line over the title. Look-alikes that stay: the pure rule on plain
 * line boxes (numbered paragraphs, a listing's numbers, a table's count column, a page number),
 * and body lines and headings on the same real pages.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { marginLineNumbers } from '../../server/layout/stages/lineNumbers';
import type { PageUnit } from '../../server/layout/stages/state';
import { failingSetTests } from './setTests';

/** Each failed before its rule. */
const FIXED = [
  'aas-p1-01',
  'aas-p1-02',
  'ptptex-p1-01',
  'aas-p1-04',
  'aas-p1-05',
  'bookchapter-de-p4-01',
  'bookchapter-de-p4-02',
  'dafx-p1-01',
];
/** Body text, headings and order on the same pages, which must stay as they were. */
const STAY = [
  'aas-p1-03',
  'aas-p1-06',
  'aas-p1-07',
  'aas-p1-08',
  'aas-p1-09',
  'dafx-p1-04',
  'dafx-p1-05',
  'ptptex-p1-03',
  'ptptex-p1-05',
  'aps-p1-03',
];

test('a draft page alone: margin line numbers, a running head far over the text, a foot beside the page number leave; the text and its heads stay', async () => {
  const ids = [...FIXED, ...STAY];
  const { failed, ran } = await failingSetTests(ids);
  assert.equal(ran.length, ids.length, 'every test id is in the set');
  assert.deepEqual(failed, []);
});

/** A text line unit at (x0, y0)–(x1, y0 + 10). */
function line(text: string, x0: number, x1: number, y0: number, monospace = false): PageUnit {
  const bbox = { x0, y0, x1, y1: y0 + 10 };
  return {
    kind: 'line',
    rotated: false,
    bbox,
    cutBox: bbox,
    line: { spans: [], bbox, text, fontSize: 10, bold: false, italic: false, monospace, mathRatio: 0, rtl: false, x0 },
  };
}

/** `rows` text lines at 12 pt pitch from y = 100, each with its number in the left margin when `numbered(i)`. */
function page(
  rows: number,
  numbered: (i: number) => boolean,
  opts: { mono?: boolean; numberX?: number } = {},
): PageUnit[] {
  const units: PageUnit[] = [];
  for (let i = 0; i < rows; i++) {
    units.push(line(`text line ${i} of the body`, 72, 540, 100 + 12 * i, opts.mono));
    if (numbered(i)) units.push(line(String(i + 1), opts.numberX ?? 50, (opts.numberX ?? 50) + 10, 100 + 12 * i));
  }
  return units;
}

test('line numbers beside every line, or every fifth, leave the body', () => {
  const every = page(20, () => true);
  assert.equal(marginLineNumbers(every, 612).length, 20);
  const fifth = page(20, (i) => (i + 1) % 5 === 0);
  assert.deepEqual(marginLineNumbers(fifth, 612), [], 'four numbers are too few to call a run');
  const fifthLong = page(40, (i) => (i + 1) % 5 === 0);
  assert.equal(marginLineNumbers(fifthLong, 612).length, 8);
});

test('look-alikes stay: numbered paragraphs, a listing, numbers inside the text block, a page number, numbers out of order', () => {
  // One number per four-line paragraph: far fewer numbers than rows.
  let n = 0;
  const paras = page(24, (i) => i % 4 === 0).map((u) =>
    u.kind === 'line' && /^\d+$/.test(u.line.text) ? line(String(++n), 50, 60, u.bbox.y0) : u,
  );
  assert.deepEqual(marginLineNumbers(paras, 612), []);
  // A listing: every line beside a number is monospaced.
  assert.deepEqual(
    marginLineNumbers(
      page(12, () => true, { mono: true }),
      612,
    ),
    [],
  );
  // A table's count column at the text block's left edge, the text beside it: not clear of the body.
  const table = page(12, () => true, { numberX: 72 }).map((u) =>
    u.kind === 'line' && !/^\d+$/.test(u.line.text) ? line(u.line.text, 100, 540, u.bbox.y0) : u,
  );
  table.push(line('A paragraph over the table at the left edge', 72, 540, 80));
  assert.deepEqual(marginLineNumbers(table, 612), []);
  // A page number alone in the margin.
  assert.deepEqual(
    marginLineNumbers(
      page(12, (i) => i === 6),
      612,
    ),
    [],
  );
  // Numbers that do not count down the page (a column of values).
  const values = page(10, () => true).map((u, k) =>
    u.kind === 'line' && /^\d+$/.test(u.line.text) ? line(String((k * 37) % 11), 50, 60, u.bbox.y0) : u,
  );
  assert.deepEqual(marginLineNumbers(values, 612), []);
});
