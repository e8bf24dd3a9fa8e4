/**
 * Issue 31 class 4, things that are not tables made into tables, on real pages with the
 * pipeline's own pdf.js extraction (what `detectTables` gets in production):
 * - papertex's newspaper sample: four narrow justified columns of news text (pages 2 and 3)
 *   were read as alignment tables, one visual line per row;
 * - a course prospectus printed by Chromium (eval/realworld/made/brochure.pdf): three stat
 *   blocks (big number over a wrapped description) became a 3-column table, and a numbered
 *   module list set in two CSS columns (01–04 | 05–08) a 4-column table;
 * - Elsevier's cas-dc sample: the "article info | abstract" band became a table of the
 *   fragments of the abstract's lines (the raised "A" of LaTeX, words in a code font).
 * And look-alikes that must stay tables: the same prospectus's unruled fee table, TECkit's
 * flag tables whose names and descriptions start in lower case ("kFlags_…", "expects fully
 * composed (NFC) text"), the PDF/UA reference invoice.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { corpusRoot, repoRoot } from '../helpers/corpus';
import { pdfBytes, readDebianSources } from '../../eval/realworld/pages';
import { setDir } from '../../eval/realworld/set';
import { detectTables, type DetectedTable } from '../../server/layout/tables/index';
import { pageContents } from './pageContent';

/** Tables of page `page` of a real-world set source (`debian/<key>`, `made/<file>`, `corpus/<path>`). */
async function tablesOn(ref: string, page: number): Promise<DetectedTable[]> {
  const set = setDir(repoRoot());
  const bytes = pdfBytes(ref, corpusRoot(), readDebianSources(set), set);
  const dir = mkdtempSync(join(tmpdir(), 'folio-nottables-'));
  try {
    const file = join(dir, 'doc.pdf');
    writeFileSync(file, bytes);
    const pages = await pageContents(file, page);
    return detectTables(pages[page - 1]!);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const cellsOf = (t: DetectedTable) => t.rows.flat().map((c) => c.text);
const anyCell = (ts: DetectedTable[], re: RegExp) => ts.some((t) => cellsOf(t).some((c) => re.test(c)));

test('newspaper columns (papertex sample, pages 2 and 3) are not tables', async () => {
  const p2 = await tablesOn('debian/papertex-example', 2);
  assert.ok(!anyCell(p2, /ris nulla vitae turpis|est velit, condimentum et/), JSON.stringify(p2.map(cellsOf)));
  const p3 = await tablesOn('debian/papertex-example', 3);
  assert.ok(!anyCell(p3, /lorem enim, condimentum|Sed sit amet lectus/), JSON.stringify(p3.map(cellsOf)));
  assert.ok(!anyCell(p3, /Mauris blandit, velit et po-/), JSON.stringify(p3.map(cellsOf)));
});

test('stat blocks and a two-column numbered list are not tables; the unruled fee table beside them is', async () => {
  const found = await tablesOn('made/brochure.pdf', 1);
  assert.ok(!anyCell(found, /^(94%|12,400|of our graduates were)$/), JSON.stringify(found.map(cellsOf)));
  assert.ok(!anyCell(found, /^(01|05|Python for data work)$/), JSON.stringify(found.map(cellsOf)));
  assert.equal(found.length, 1);
  assert.deepEqual(
    found[0]!.rows.map((r) => r.map((c) => c.text)),
    [
      ['Course', 'Starts', 'Weeks', 'Fee'],
      ['Evening programme', '12 January', '24', '€2,400'],
      ['Weekend programme', '7 February', '30', '€2,650'],
      ['Intensive summer course', '6 July', '8', '€2,900'],
      ['Single module', 'any month', '3', '€350'],
    ],
  );
});

test("a prose band's fragments in another font (cas-dc's article info | abstract) are not a table", async () => {
  const found = await tablesOn('debian/els-cas-dc', 1);
  assert.ok(
    !anyCell(found, /ARTICLE|A R T I C L E|keywords respectively|ATEX manuscript/),
    JSON.stringify(found.map(cellsOf)),
  );
});

test('tables whose cells start in lower case stay tables (TECkit flag tables)', async () => {
  const bin = await tablesOn('debian/teckit-binary-format', 3);
  const row = bin.flatMap((t) => t.rows).find((r) => r.some((c) => c.text === 'kFlags_ExpectsNormC'));
  assert.ok(row, JSON.stringify(bin.map(cellsOf)));
  assert.deepEqual(
    row.map((c) => c.text),
    ['kFlags_ExpectsNormC', '0x00000001', 'expects fully composed (NFC) text'],
  );
  const lang = await tablesOn('debian/teckit-language', 4);
  const flag = lang.flatMap((t) => t.rows).find((r) => r.some((c) => c.text === 'ExpectsNFC'));
  assert.ok(flag, JSON.stringify(lang.map(cellsOf)));
  assert.ok(flag.some((c) => /^input on this side of the mapping/.test(c.text)));
});

test('the PDF/UA reference invoice keeps its unruled item table', async () => {
  const found = await tablesOn(
    'corpus/opendataloader-samples/pdfua-1-reference-suite-1-1/PDFUA-Ref-2-02_Invoice.pdf',
    1,
  );
  assert.ok(anyCell(found, /^845\.00$/), JSON.stringify(found.map(cellsOf)));
});
