/**
 * Issue 31 class 5, tables in statements ruled with horizontal rules only, on real pages cut
 * alone with the set's person-checked tests (eval/realworld/tests.jsonl):
 * - the LaTeX invoice package's manual, p. 8: two tables, each with a rule under its header
 *   only, the second with rules over its totals and a double rule over "Total"; rows set solid
 *   (a blank line only before a subtotal); a centred bold title between the tables. Every body
 *   row was collapsed into one cell per column and both tables were one;
 * - bankstatement's example: a rule over the header, one under it and one under the opening
 *   balance; the bookings (date, text, amount, then detail lines set solid; bookings padded
 *   apart) below the last rule came out as paragraphs.
 * Beside each, what must stay out: the heading between the tables, the figure caption under the
 * totals, the key-value block above the statement, the numbered list under the invoice.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { failingSetTests } from './setTests';
import { fileMarkdown } from './convertFile';
import { materializePages } from '../../eval/realworld/pages';
import { readTests, setDir, TESTS_FILE } from '../../eval/realworld/set';
import { corpusRoot } from '../../eval/corpus';
import { repoRoot } from '../../eval/repo';

/** Folio's Markdown of the page a set test is on, converted alone. */
async function pageMarkdown(testId: string): Promise<string> {
  const repo = repoRoot();
  const tests = readTests(join(setDir(repo), TESTS_FILE)).filter((t) => t.id === testId);
  assert.equal(tests.length, 1, testId);
  const dir = mkdtempSync(join(tmpdir(), 'folio-stmt-'));
  try {
    const files = materializePages(tests, dir, corpusRoot(repo), setDir(repo));
    return await fileMarkdown(files.get(`${tests[0]!.pdf}#${tests[0]!.page}`)!);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The Markdown tables' rows, each a list of trimmed cells. */
function tableRows(md: string): string[][] {
  return md
    .split('\n')
    .filter((l) => l.startsWith('|') && !/^\|\s*-/.test(l))
    .map((l) =>
      l
        .slice(1, -1)
        .split('|')
        .map((c) => c.trim()),
    );
}

test('invoice: each solid-set line a row, a wrapped label one cell, two tables apart', async () => {
  const ids = ['invoice-doc-p8-01', 'invoice-doc-p8-02', 'invoice-doc-p8-03', 'invoice-doc-p8-04'];
  const { failed, ran } = await failingSetTests(ids);
  assert.equal(ran.length, ids.length);
  assert.deepEqual(failed, []);

  const md = await pageMarkdown('invoice-doc-p8-01');
  const rows = tableRows(md);
  const row = (label: string) => rows.find((r) => r[0] === label);
  // A label wrapped over two lines is one cell; the VAT line under it is a row of its own.
  assert.deepEqual(row('Some really lengthy and utterly tedious negotiation'), [
    'Some really lengthy and utterly tedious negotiation',
    '1818.00',
    '12',
    '21 816.00',
  ]);
  assert.ok(row('VAT (0.0%)'));
  // The totals under the double rule are the second table's last row.
  assert.deepEqual(row('Total'), ['Total', '', '', '46 566.00']);
  // Two tables: two header rows, the title between them a heading, not a row.
  assert.equal(rows.filter((r) => r[0] === 'Activity').length, 2);
  assert.match(md, /^#+ Sales Restructuring$/m);
  assert.ok(!rows.flat().some((c) => /Restructuring$|Figure 3/.test(c) && !c.startsWith('Subtotal')));
  // The numbered list under the tables keeps its labels (its labels are not a text column).
  assert.match(md, /^1\. &lt;Contents> contains a description/m);
  assert.match(md, /^5\. &lt;Base Currency Result> contains/m);
});

test('bank statement: bookings past the last rule are rows, padded rows keep their detail lines', async () => {
  const ids = [
    'bank-statement-p1-03',
    'bank-statement-p1-04',
    'bank-statement-p1-05',
    'bank-statement-p1-06',
    'bank-statement-p1-07',
    'bank-statement-p1-09',
    'bank-statement-p1-10',
  ];
  const { failed, ran } = await failingSetTests(ids);
  assert.equal(ran.length, ids.length);
  assert.deepEqual(failed, []);

  const md = await pageMarkdown('bank-statement-p1-05');
  const rows = tableRows(md);
  // Header, opening balance and six bookings; each booking's date pair and detail lines in its row.
  assert.equal(rows.length, 8);
  assert.deepEqual(rows[0], ['Datum', 'Verwendungszweck', 'Betrag (EUR)']);
  const einzahlung = rows.find((r) => r[1]!.startsWith('EINZAHLUNG'));
  assert.deepEqual(einzahlung?.[0], '02.12.14 (02.12.14)');
  assert.match(einzahlung![1]!, /SB-EINZAHLUNG ErdingW2 .* \/ 1812 \/0 \/ 0$/);
  assert.equal(einzahlung![2], '150,00');
  // The account block above the statement (three label/value columns) is not part of it.
  assert.ok(!rows.flat().some((c) => /Josef Kleber|BYLADEM1ERD|Kontoinhaber/.test(c)));
  assert.match(md, /Josef Kleber/);
});

test("acmart's booktabs table: a symbol's stacked scripts stay in its cell, not a row of their own", async () => {
  // "Ψ" from the math font has a glyph-tight box and 7.3 pt scripts under a 9 pt body: the
  // subscript "1" was a row "| 1 | | |" under the last row. The bullet list beside the table
  // (left column) stays a list.
  const ids = ['acm-sigconf-p3-05', 'acm-sigconf-p3-06', 'acm-sigconf-p3-08'];
  const { failed, ran } = await failingSetTests(ids);
  assert.equal(ran.length, ids.length);
  assert.deepEqual(failed, []);
  const md = await pageMarkdown('acm-sigconf-p3-06');
  const rows = tableRows(md);
  assert.equal(rows.length, 5);
  const last = rows[rows.length - 1]!;
  assert.match(last[0]!, /^Ψ(12|21)$/);
  assert.deepEqual(last.slice(1), ['1 in 40,000', 'Unexplained usage']);
  assert.match(md, /^- the “ACM Reference Format” text on the first page\.$/m);
});

test("a manual's ruled table of flags, a short term and a long description per row, is a table", async () => {
  // TECkit's language manual, p. 4: one rule under each row, descriptions of 50–75 characters,
  // which the prose guard (long runs of words) had turned back into paragraphs. The prose under
  // it and the monospace header example stay out of any table.
  const ids = ['teckit-lang-p4-03', 'teckit-lang-p4-07', 'teckit-lang-p4-09'];
  const { failed, ran } = await failingSetTests(ids);
  assert.equal(ran.length, ids.length);
  assert.deepEqual(failed, []);
  const md = await pageMarkdown('teckit-lang-p4-03');
  const rows = tableRows(md);
  assert.deepEqual(
    rows.map((r) => r[0]),
    ['ExpectsNFC', 'ExpectsNFD', 'GeneratesNFC', 'GeneratesNFD', 'VisualOrder'],
  );
  assert.ok(rows.every((r) => r.length === 2));
  assert.match(md, /^The “expects” flags can be used to specify/m);
});
