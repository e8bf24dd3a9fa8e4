/**
 * The structured readers (server/office, server/html) on real documents: Docling's own test files
 * (made by Word, PowerPoint, Excel and by hand for HTML; eval/office/docling/, MIT) and a report
 * LibreOffice Writer made (eval/office/made/). Each test names what the reader must keep.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/corpus';
import { readStructured, structuredFormatOf } from '../../server/office';
import { OfficePackage } from '../../server/office/package';
import { readXlsx } from '../../server/office/xlsx';
import type { DocItem } from '../../server/model/items';

const docling = (fmt: string, name: string) => join(repoRoot(), 'eval', 'office', 'docling', fmt, 'sources', name);
const made = (name: string) => join(repoRoot(), 'eval', 'office', 'made', name);
const read = (path: string) => readStructured(path, structuredFormatOf(path)!);
const items = (path: string): DocItem[] => read(path).pages.flatMap((p) => p.items);
const texts = (its: DocItem[], cls: string) => its.filter((i) => i.cls === cls).map((i) => i.text);

test('a LibreOffice DOCX keeps headings by level, nested numbered lists and a table with merged cells', () => {
  const its = items(made('report.docx'));
  const heads = its.filter((i) => i.cls === 'section_header').map((i) => `${i.level}:${i.text}`);
  assert.deepEqual(heads, ['1:Quarterly Field Report', '2:Methods', '2:Results', '3:Observations', '2:Conclusion']);
  const list = its.filter((i) => i.cls === 'list_item');
  assert.deepEqual(
    list.slice(0, 5).map((i) => `${i.level}${i.ordered ? 'o' : 'u'}${i.marker ?? ''} ${i.text}`),
    [
      '0o1. Choose the transect start point.',
      '0o2. Walk the transect at a steady pace.',
      '1o1. Record every bird seen.',
      '1o2. Record the water depth.',
      '0o3. Return along the same path.',
    ],
  );
  const table = its.find((i) => i.cls === 'table')!.table!;
  assert.deepEqual(
    table.map((r) => r.map((c) => c.tag).join(' ')),
    ['fcel fcel lcel fcel', 'fcel fcel fcel fcel', 'fcel fcel fcel fcel', 'ucel fcel fcel fcel'],
    'colspan 2 is an lcel, the rowspan a ucel',
  );
  assert.equal(table[2][0].text, 'South reed bed');
});

test('Word numbering: labels, restarts and levels come from numbering.xml', () => {
  const its = items(docling('docx', 'docx_lists.docx'));
  const ordered = its.filter((i) => i.cls === 'list_item' && i.ordered);
  assert.ok(ordered.length >= 3);
  assert.deepEqual(
    ordered.slice(0, 3).map((i) => i.marker),
    ['1.', '2.', '3.'],
  );
  assert.ok(
    its.some((i) => i.cls === 'list_item' && (i.level ?? 0) >= 2),
    'a third-level item',
  );
});

test('numbered headings carry their printed numbers (1, 1.1, 1.2)', () => {
  const heads = texts(items(docling('docx', 'unit_test_headers_numbered.docx')), 'section_header');
  assert.ok(heads.includes('1 Section 1'), heads.join(' | '));
  assert.ok(heads.includes('1.1 Section 1.1'));
  assert.ok(heads.includes('1.2 Section 1.2'));
});

test('OMML equations become LaTeX: display formulas and inline math in running text', () => {
  const its = items(docling('docx', 'equations.docx'));
  const formulas = texts(its, 'formula');
  assert.ok(formulas.includes('a^{2}+b^{2}=c^{2} \\times 23'), formulas.join('\n'));
  assert.ok(formulas.some((f) => f.includes('\\sum_{n=1}^{\\infty}') && f.includes('\\frac{n \\pi x}{L}')));
  const inline = its.find((i) => i.parts?.some((p) => p.math && p.text === 'A= \\pi r^{2}'));
  assert.ok(inline, 'inline math kept as a part');
});

test('a picture keeps its caption and its bytes go to savePicture; page headers and footers are furniture', () => {
  const saved: { ext: string; size: number }[] = [];
  const doc = readStructured(docling('docx', 'word_sample.docx'), 'docx', {
    savePicture: (data, ext) => {
      saved.push({ ext, size: data.length });
      return `pics/${saved.length}.${ext}`;
    },
  });
  const pic = doc.pages[0].items.find((i) => i.cls === 'picture')!;
  assert.equal(pic.caption?.text, 'Figure 1: This is a cute duckling');
  assert.equal(pic.imagePath, 'pics/1.png');
  assert.equal(saved[0].ext, 'png');
  assert.ok(saved[0].size > 1000);
  const hf = items(docling('docx', 'docx_page_header_footer_first_page.docx')).filter(
    (i) => i.cls === 'page_header' || i.cls === 'page_footer',
  );
  assert.ok(hf.length > 0, 'headers/footers read as furniture');
});

test('text boxes are read after the paragraph that anchors them', () => {
  const all = items(docling('docx', 'textbox.docx'))
    .map((i) => i.text)
    .join('\n');
  assert.match(all, /Suggested Reportable Symptoms/);
  assert.match(all, /within 24 hours via the Ministry of Education/);
});

test('PPTX: a slide a page with its title, inherited bullets, numbering and a merged-cell table', () => {
  const doc = read(docling('pptx', 'powerpoint_sample.pptx'));
  assert.equal(doc.pages.length, 3);
  assert.equal(doc.pages[0].label, 'slide 1');
  assert.ok(doc.pages[0].width > 500 && doc.pages[0].height > 300, 'the slide size in points');
  const [s1, s2] = doc.pages.map((p) => p.items);
  assert.equal(s1[0].cls, 'title');
  const table = s1.find((i) => i.cls === 'table')!.table!;
  assert.deepEqual(
    table[0].map((c) => c.tag),
    ['ecel', 'fcel', 'lcel', 'lcel', 'fcel', 'lcel', 'lcel'],
  );
  assert.equal(texts(s2, 'title')[0], 'Second slide title');
  const bullets = s2.filter((i) => i.cls === 'list_item' && !i.ordered).map((i) => i.text);
  assert.ok(bullets.includes('With foo') && bullets.includes('And baz things'), bullets.join('|'));
  const numbered = doc.pages.flatMap((p) => p.items).filter((i) => i.cls === 'list_item' && i.ordered);
  assert.deepEqual(
    numbered.slice(0, 3).map((i) => `${i.marker} ${i.text}`),
    ['1. List item4', '2. List item5', '3. List item6'],
  );
});

test('PPTX written by LibreOffice Impress: the title placeholder is the heading, the subtitle and body are not', () => {
  // powerpoint_sample_lo.pptx: Docling's sample saved again by Impress (eval/office/made/make.sh), so
  // every part is LibreOffice's own writing (placeholders with no layout index, its own masters).
  const doc = read(made('powerpoint_sample_lo.pptx'));
  assert.equal(doc.pages.length, 3);
  const titles = doc.pages.map((p) => texts(p.items, 'title'));
  assert.deepEqual(titles.slice(0, 2), [['Test Table Slide'], ['Second slide title']]);
  const all = doc.pages.flatMap((p) => p.items);
  assert.ok(
    all.some((i) => i.cls === 'table'),
    'the slide table is a table',
  );
  const bullets = all.filter((i) => i.cls === 'list_item').map((i) => i.text);
  assert.ok(bullets.includes('With foo') && bullets.includes('List item4'), bullets.join('|'));
  assert.ok(!texts(all, 'title').includes('With foo'));
});

test('PPTX pictures are pictures', () => {
  assert.ok(items(docling('pptx', 'powerpoint_with_image.pptx')).some((i) => i.cls === 'picture'));
});

test('XLSX: the sheet name is a heading and each block of cells a table', () => {
  const doc = read(docling('xlsx', 'xlsx_01.xlsx'));
  const names = doc.pages.map((p) => p.items[0]);
  assert.ok(names.every((h) => h.cls === 'section_header' && h.level === 1));
  assert.deepEqual(
    names.slice(0, 2).map((h) => h.text),
    ['Sheet1', 'Sheet2'],
  );
  const t = doc.pages[0].items.find((i) => i.cls === 'table')!.table!;
  assert.deepEqual(
    t[0].map((c) => c.text),
    ['first', 'second', 'third'],
  );
  assert.deepEqual(
    t[6].map((c) => c.text),
    ['6', '0', '-6'],
  );
});

test('XLSX past the cell limit is read up to it, with a warning', () => {
  const path = docling('xlsx', 'xlsx_01.xlsx');
  const doc = readXlsx(new OfficePackage(readFileSync(path), path), { maxCells: 10 });
  const cells = doc.pages
    .flatMap((p) => p.items)
    .flatMap((i) => i.table ?? [])
    .flat()
    .filter((c) => c.text);
  assert.ok(cells.length <= 10, `${cells.length} cells`);
  assert.match(doc.warnings.join('\n'), /more than 10 filled cells/);
});

test('an .xlsm is read without inflating anything but the parts it needs (no macro project)', () => {
  const path = docling('xlsx', 'xlsx_02_sample_sales_data.xlsm');
  const pkg = new OfficePackage(readFileSync(path), path);
  assert.ok(readXlsx(pkg).pages.length >= 1);
  const read = pkg.inflated();
  assert.ok(read.length > 0 && read.every((p) => p.endsWith('.xml') || p.endsWith('.rels')), read.join(', '));
});

test('HTML: headings, lists with start, tables with spans, alt text; styles are not text', () => {
  const its = items(docling('html', 'example_01.html'));
  assert.deepEqual(texts(its, 'title'), ['Introduction']);
  assert.deepEqual(texts(its, 'section_header'), ['Background']);
  const started = its.filter((i) => i.marker === '42.' || i.marker === '43.').map((i) => i.text);
  assert.deepEqual(started, ['First item in ordered list with start', 'Second item in ordered list with start']);
  const pic = its.find((i) => i.cls === 'picture')!;
  assert.equal(pic.caption?.text, 'Example image');
  assert.equal(pic.imagePath, undefined, 'a picture named by path is never read');
  assert.ok(!items(docling('html', 'table_03.html')).some((i) => /border-collapse/.test(i.text)), 'the <style>');
  const spans = items(docling('html', 'example_04.html')).find((i) => i.cls === 'table')!.table!;
  assert.ok(
    spans.flat().some((c) => c.tag === 'lcel' || c.tag === 'ucel'),
    'colspan/rowspan as OTSL spans',
  );
});

test('CSV: the delimiter is found (semicolon, tab, pipe) and a quoted comma stays in its cell', () => {
  for (const name of ['csv-semicolon.csv', 'csv-tab.csv', 'csv-pipe.csv']) {
    const t = items(docling('csv', name)).find((i) => i.cls === 'table')!.table!;
    assert.ok(t[0].length > 2, `${name}: ${t[0].length} columns`);
  }
  const t = items(docling('csv', 'csv-comma-in-cell.csv')).find((i) => i.cls === 'table')!.table!;
  assert.ok(t.flat().some((c) => c.text.includes(',')));
});

test('Markdown through the document model: headings and nested lists', () => {
  assert.ok(items(docling('md', 'mixed.md')).some((i) => i.cls === 'title' || i.cls === 'section_header'));
  assert.ok(items(docling('md', 'nested.md')).some((i) => i.cls === 'list_item' && (i.level ?? 0) >= 1));
});

test('Markdown: every HTML5 named character reference is read once, as CommonMark does (`&vert;` is a pipe)', () => {
  const its = items(docling('md', 'escaped_characters.md'));
  const table = its.find((i) => i.cls === 'table')!.table!;
  const pipe = table.find((r) => r[0]?.text === 'Pipe')!;
  // `&#124; &vert; &#x7C;`: three spellings of "|" (Docling's ground truth: `&#124; &#124; &#124;`).
  assert.equal(pipe[1]!.text, '| | |');
  const dir = mkdtempSync(join(tmpdir(), 'folio-md-'));
  try {
    const file = join(dir, 'refs.md');
    writeFileSync(file, 'a &copy; b &notin; c &amp;lt; d &nosuchname; e &vert\n');
    const para = items(file).find((i) => i.cls === 'text')!;
    assert.equal(para.text, 'a © b ∉ c &lt; d &nosuchname; e &vert');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
