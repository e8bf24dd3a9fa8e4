import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NothingMeasuredError } from '../../eval/report/nothingMeasured';
import { repoRoot } from '../../eval/repo';
import { doclingTable, readPersonTables, tableSetDir, TABLES_FILE, TableSetError } from '../../eval/tables/set';
import { outputTables, producerName, runTableSet, scorePage } from '../../eval/tables/run';

const repo = repoRoot();

test('table set: the committed person-written pages parse, each with its tables', () => {
  const pages = readPersonTables(join(tableSetDir(repo), TABLES_FILE));
  assert.ok(pages.length >= 3);
  const revtex = pages.find((p) => p.id === 'revtex-apssamp-p5');
  assert.ok(revtex);
  assert.equal(revtex.tables.length, 3);
  // Table II's first header row: an empty corner cell and two headings over two columns each.
  assert.deepEqual(
    revtex.tables[0].rows[0].map((c) => [c.text, c.colspan, c.header]),
    [
      ['', 1, true],
      ['D14h', 2, true],
      ['D54h', 2, true],
    ],
  );
});

test('table set: a bad line is an error naming the file and line', () => {
  const dir = mkdtempSync(join(tmpdir(), 'folio-tableset-'));
  try {
    const f = join(dir, 'tables.jsonl');
    writeFileSync(f, '{"id":"a","pdf":"corpus/x.pdf","page":1,"tables":["<table><tr><td>1</td></tr></table>"]}\n');
    assert.throws(
      () => readPersonTables(f),
      (e: Error) => e instanceof TableSetError && /:1: .*verified/.test(e.message),
    );
    writeFileSync(f, '{"id":"a","pdf":"corpus/../x.pdf","page":1,"tables":[],"checked":"verified"}\n');
    assert.throws(() => readPersonTables(f), /tables.jsonl:1: "pdf"/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('table set: Docling cells become rows with spans placed once at their top-left', () => {
  const cell = (text: string, r: number, c: number, rs = 1, cs = 1, head = false) => ({
    text,
    row_span: rs,
    col_span: cs,
    start_row_offset_idx: r,
    start_col_offset_idx: c,
    column_header: head,
  });
  const t = doclingTable({
    prov: [{ page_no: 1 }],
    data: {
      num_rows: 3,
      num_cols: 3,
      table_cells: [
        cell('Name', 0, 0, 2, 1, true),
        cell('Year Ended', 0, 1, 1, 2, true),
        cell('2023', 1, 1, 1, 1, true),
        cell('2024', 1, 2, 1, 1, true),
        cell('Sales', 2, 0),
        cell('5', 2, 2),
      ],
    },
  });
  assert.ok(t);
  assert.deepEqual(
    t.rows.map((r) => r.map((c) => `${c.text}/${c.rowspan}x${c.colspan}`)),
    [
      ['Name/2x1', 'Year Ended/1x2'],
      ['2023/1x1', '2024/1x1'],
      ['Sales/1x1', '/1x1', '5/1x1'],
    ],
  );
});

test('table set: scores read the tables of a Markdown output; plain text has none', () => {
  const gt = outputTables('| a | b |\n|---|---|\n| 1 | 2 |\n', 'markdown');
  assert.equal(gt.length, 1);
  const good = scorePage(gt, { text: 'Intro\n\n| a | b |\n|---|---|\n| 1 | 2 |\n', ms: 0 }, 'markdown');
  assert.deepEqual(good, { cellF1: 1, teds: 1 });
  assert.deepEqual(scorePage(gt, { text: 'a b\n1 2\n', ms: 0 }, 'text'), { cellF1: 0, teds: 0 });
  assert.deepEqual(scorePage(gt, { error: 'timeout', ms: 0 }, 'markdown'), { cellF1: 0, teds: 0 });
});

test('table set: producer names lose their versions', () => {
  assert.equal(producerName('pdfTeX-1.40.16'), 'pdfTeX');
  assert.equal(producerName('GPL Ghostscript 9.27'), 'GPL Ghostscript');
  assert.equal(producerName(''), '(none)');
});

test('table set: an empty selection fails loudly instead of reporting nothing', async () => {
  await assert.rejects(
    runTableSet(repo, { outDir: tmpdir(), jobs: 1, timeoutMs: 1000, only: ['no-such-page-anywhere'] }),
    (e: Error) => e instanceof NothingMeasuredError && /table set/.test(e.message),
  );
});
