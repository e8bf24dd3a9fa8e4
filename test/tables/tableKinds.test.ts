/**
 * Issue 40, class 4: the table kinds that failed on real pages, each on a page typeset for the
 * test by a real producer (test/fixtures/table-kinds/make.sh), with a look-alike on the same page
 * that must stay as it was:
 * - leader-dot rows ("Main hall, per hour . . . . £14.00 £18.50") are a table of label and values
 *   (Chromium, proportional; LibreOffice, typewritten) — dotted fill-in lines with nothing after
 *   the dots and the prose around stay text;
 * - a stacked header: group headings ("Spring", "Autumn") span the sub-headings under them, the
 *   cell spanning both header rows ("Ward") ends the header although the rule under it stops at
 *   its edge, and a two-line sub-heading ("Planted / trees") is one cell with a space — while a
 *   two-line cell of a single column ("Requests / per second") spans nothing and a word broken in a
 *   narrow column ("Throu" + "ghput") joins without one;
 * - a typed table whose header cells stand one space apart ("Vans checked Faulty Scrapped"):
 *   four columns, its last row kept though a paragraph follows it at once — the paragraphs stay text.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { detectTables, type DetectedTable } from '../../server/layout/tables/index';
import { repoRoot } from '../../eval/repo';
import { pageContents } from './pageContent';
import type { PageContent } from '../../server/model/content';

const dir = join(repoRoot(), 'test', 'fixtures', 'table-kinds');

function cells(t: DetectedTable): string[][] {
  return t.rows.map((r) => r.map((c) => (c.text ? `${c.tag}:${c.text}` : c.tag)));
}

function tableWith(tables: DetectedTable[], text: string): DetectedTable | undefined {
  return tables.find((t) => t.rows.some((r) => r.some((c) => c.text === text)));
}

/** The page has spans holding `s`, and no table took any of them. */
function leftAsText(page: PageContent, tables: DetectedTable[], s: string): void {
  const taken = new Set(tables.flatMap((t) => t.spanIndices));
  const hits = page.spans.flatMap((x, i) => (x.text.includes(s) ? [i] : []));
  assert.ok(hits.length > 0, `no span holds '${s}'`);
  assert.deepEqual(
    hits.filter((i) => taken.has(i)).map((i) => page.spans[i]!.text),
    [],
    `'${s}' was taken into a table`,
  );
}

test('leader-dot rows are a table of label and prices; dotted fill-in lines stay text (Chromium)', async () => {
  const [page] = await pageContents(join(dir, 'kinds.pdf'));
  const tables = detectTables(page!);
  const prices = tableWith(tables, 'Main hall, per hour');
  assert.ok(prices, 'no price table');
  assert.deepEqual(cells(prices), [
    ['fcel:Main hall, per hour', 'fcel:£14.00', 'fcel:£18.50'],
    ['fcel:Committee room, per hour', 'fcel:£7.50', 'fcel:£9.00'],
    ['fcel:Kitchen, per session', 'fcel:£10.00', 'fcel:£12.00'],
    ['fcel:Stage lighting', 'fcel:£6.00', 'fcel:£6.00'],
    ['fcel:Tables and chairs, per set of ten', 'fcel:£3.00', 'fcel:£4.00'],
  ]);
  // The form's fill-in lines and the paragraph between the two lists are no table's.
  for (const s of ['organiser', 'Telephone', 'hours wanted', 'residents']) leftAsText(page!, tables, s);
});

test('leader-dot costs in a typewritten return are a table (LibreOffice, monospaced)', async () => {
  const [page] = await pageContents(join(dir, 'typed.pdf'));
  const tables = detectTables(page!);
  const costs = tableWith(tables, 'Fuel');
  assert.ok(costs, 'no cost table');
  assert.deepEqual(cells(costs), [
    ['fcel:Fuel', 'fcel:18,420'],
    ['fcel:Tyres and batteries', 'fcel:3,115'],
    ['fcel:Parts for repairs', 'fcel:6,870'],
    ["fcel:Examiners' overtime", 'fcel:1,240'],
  ]);
  leftAsText(page!, tables, 'Running');
});

test('stacked header: group headings span their sub-headings, two-line sub-headings are one cell', async () => {
  const [page] = await pageContents(join(dir, 'kinds.pdf'));
  const tables = detectTables(page!);
  const trees = tableWith(tables, 'Church End');
  assert.ok(trees, 'no saplings table');
  assert.deepEqual(cells(trees).slice(0, 3), [
    ['ecel', 'ched:Spring', 'lcel', 'ched:Autumn', 'lcel'],
    ['ched:Ward', 'ched:Planted trees', 'ched:Surviving trees', 'ched:Planted trees', 'ched:Surviving trees'],
    ['fcel:Church End', 'fcel:120', 'fcel:97', 'fcel:85', 'fcel:80'],
  ]);
  assert.equal(trees.rows.length, 6);
});

test('look-alikes: a two-line cell of one column spans nothing; a word broken in a narrow column joins', async () => {
  const [page] = await pageContents(join(dir, 'kinds.pdf'));
  const load = tableWith(detectTables(page!), 'Saturday');
  assert.ok(load, 'no load table');
  assert.deepEqual(cells(load), [
    ['ched:Day', 'ched:Requests per second', 'ched:Throughput', 'ched:Errors'],
    ['fcel:Friday', 'fcel:14.2', 'fcel:310', 'fcel:0'],
    ['fcel:Saturday', 'fcel:48.9', 'fcel:1,046', 'fcel:3'],
    ['fcel:Sunday', 'fcel:22.5', 'fcel:512', 'fcel:1'],
  ]);
});

test('typed table: header cells one space apart head four columns; the paragraphs stay text', async () => {
  const [page] = await pageContents(join(dir, 'typed.pdf'));
  const tables = detectTables(page!);
  const vans = tableWith(tables, 'Northgate yard');
  assert.ok(vans, 'no depot table');
  assert.deepEqual(cells(vans), [
    ['ched:Depot', 'ched:Vans checked', 'ched:Faulty', 'ched:Scrapped'],
    ['fcel:Northgate yard', 'fcel:41', 'fcel:7', 'fcel:1'],
    ['fcel:Canal Street', 'fcel:26', 'fcel:3', 'fcel:0'],
    ['fcel:Hill Top garage', 'fcel:58', 'fcel:12', 'fcel:4'],
    ['fcel:Riverside', 'fcel:19', 'fcel:2', 'fcel:0'],
  ]);
  for (const s of ['examiners', 'certificate']) leftAsText(page!, tables, s);
});
