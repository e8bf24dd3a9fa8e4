/**
 * Issue 31 class 5, tables in reports and statements, on real pages cut alone with the set's
 * person-checked tests (eval/realworld/tests.jsonl):
 * - an Italian income statement (opendataloader's Bialetti "Conto economico", LibreOffice Calc
 *   export) ruled only in columns and a few shaded section rows: every body row was one cell per
 *   column holding forty lines; the year header, drawn without rules between the years, was one
 *   cell over four columns;
 * - the OTSL paper's Table 1: two rows (OTSL, HTML) per layer setting under one pair of cells
 *   centred on both;
 * - MORAN's Table 4 (booktabs-style rules, rows "Only ASRN / MORAN without FP / MORAN with FP"
 *   in one band) and Table 2, whose "1×32×100" (a × in the math font between numbers) came out
 *   as "1 × 32 × 100";
 * - issue 40: a header boxed by double rules, multi-line header cells, a typed table's narrow
 *   columns, a leader-dot list (the last test).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { failingSetTests } from './setTests';

test('statement rows ruled only by column: one row per text line, year headers one per column', async () => {
  const ids = ['bialetti-p1-01', 'bialetti-p1-02', 'bialetti-p1-03', 'bialetti-p1-04', 'bialetti-p1-05'];
  const { failed, ran } = await failingSetTests(ids);
  assert.equal(ran.length, ids.length);
  assert.deepEqual(failed, []);
});

test('rows under one band split; a cell centred on two rows spans them; touching runs join', async () => {
  const ids = [
    'otsl-p9-05',
    'otsl-p9-06',
    'otsl-p9-07',
    'otsl-p9-08',
    'otsl-p9-09',
    'moran-p9-01',
    'moran-p9-02',
    'moran-p9-03',
    'moran-p9-04',
    'moran-p6-01',
    'moran-p6-02',
    'moran-p6-03',
    'moran-p6-04',
  ];
  const { failed, ran } = await failingSetTests(ids);
  assert.equal(ran.length, ids.length);
  assert.deepEqual(failed, []);
});

test("an invoice's total under its amounts column is the table's last row, not a paragraph after it", async () => {
  // The PDF Association's PDF/UA reference invoice: shaded rows, no rules; "845.00" alone on
  // the last shaded row, right-aligned with the amounts above it.
  const ids = [
    'pdfua-invoice-p1-01',
    'pdfua-invoice-p1-02',
    'pdfua-invoice-p1-03',
    'pdfua-invoice-p1-04',
    'pdfua-invoice-p1-05',
  ];
  const { failed, ran } = await failingSetTests(ids);
  assert.equal(ran.length, ids.length);
  assert.deepEqual(failed, []);
});

test('issue 40: a header boxed by double rules, multi-line header cells, typed narrow columns, leader dots', async () => {
  // ERDC's conversion table: the header row boxed by double rules, each row's column rules
  // stopping at the inner line (the header was a one-row frame, its text paragraphs); APA's
  // "Percentage of / targets with / segment in" beside "Total number / of trials per /
  // participant" (each line was a header row); the typed memo's "Marks checked Destroyed
  // Damaged", one space apart over four columns; the report's leader-dot cost list.
  const ids = [
    'erdc-p10-02',
    'erdc-p10-03',
    'erdc-p10-05',
    'erdc-p10-06',
    'apa7short-p1-08',
    'madememo-p1-05',
    'madememo-p1-06',
    'madememo-p1-07',
    'madememo-p1-08',
    'madememo-p1-11',
    'madereport-p1-12',
    'madereport-p1-13',
    'madereport-p1-14',
  ];
  const { failed, ran } = await failingSetTests(ids);
  assert.equal(ran.length, ids.length);
  assert.deepEqual(failed, []);
});
