/**
 * What the structured readers keep so that Folio's Markdown reads as Docling's on Docling's own
 * test documents (eval/office/docling/, MIT; made by Excel, PowerPoint and by hand): each test
 * names a rule Docling follows and checks it on a real file, not on a result copied from Docling.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { repoRoot } from '../helpers/corpus';
import { readStructured, structuredFormatOf } from '../../server/office';
import { isDateFormatCode, serialDateText } from '../../server/office/xlsx';
import { readHtml } from '../../server/html/html';
import type { DocItem } from '../../server/model/items';

const docling = (fmt: string, name: string) => join(repoRoot(), 'eval', 'office', 'docling', fmt, 'sources', name);
const read = (path: string, savePicture?: (d: Uint8Array, ext: string) => string) =>
  readStructured(path, structuredFormatOf(path)!, savePicture ? { savePicture } : {});
const cellsOf = (it: DocItem) => (it.table ?? []).map((r) => r.map((c) => c.text));

test("XLSX: review comments after the sheet in cell order, a thread's last entry in the body and what it answers as furniture", () => {
  const items = read(docling('xlsx', 'xlsx_comments.xlsx')).pages[0].items;
  const comments = items.filter((i) => i.cls === 'text' && i.text.startsWith('[author:')).map((i) => i.text);
  assert.deepEqual(comments, [
    '[author: John Reviewer]: Why Python specifically?',
    '[author: Jane Editor]: Which libraries are you referring to?',
    // F7's thread: the reply, as Docling writes the cell's comment (Excel's legacy copy is not written twice).
    '[author: Marcus Sterling (MS), time: 2026-06-18T17:15:52.310]: I never thought it would be so low',
    '[author: Jane Smith (JS), time: 2026-06-18T17:12:57.350]: Maximum number of ducks',
  ]);
  // The comment the reply answers is kept, in the furniture layer, just before the reply.
  const opening = items.findIndex((i) => i.text.endsWith('Minimum number of saltwater ducks'));
  assert.equal(items[opening]?.cls, 'page_footer');
  assert.equal(
    items[opening]?.text,
    '[author: Jane Smith (JS), time: 2026-06-18T17:12:37.410]: Minimum number of saltwater ducks',
  );
  assert.ok(items[opening + 1]?.text.endsWith('I never thought it would be so low'));
  // After every table of the sheet.
  assert.ok(items.findIndex((i) => i.text === comments[0]) > items.map((i) => i.cls).lastIndexOf('table'));
});

test("PPTX: review comments after the slide, with the author's initials and the time as written", () => {
  const pages = read(docling('pptx', 'powerpoint_comments.pptx')).pages;
  const per = pages.map((p) => p.items.filter((i) => i.text.startsWith('[author:')).map((i) => i.text));
  assert.deepEqual(per, [
    [
      '[author: John Reviewer (JR), time: 2026-01-01T00:00:00]: This is a sample reviewer comment',
      '[author: Jane Smith (JS), time: 2026-06-18T17:35:35.236]: This is a sample response',
    ],
    [],
    [
      '[author: Jane Smith (JS), time: 2026-06-18T17:37:55.253]: This is a cool feature',
      '[author: Jane Smith (JS), time: 2026-06-18T17:38:32.720]: I need to try this out!',
    ],
  ]);
  const last = pages[0].items[pages[0].items.length - 1]!;
  assert.ok(last.text.endsWith('This is a sample response'), 'the comments come after the slide body');
});

test('XLSX: a hidden sheet is left out, with a warning saying so', () => {
  const doc = read(docling('xlsx', 'xlsx_01.xlsx'));
  const names = doc.pages.map((p) => p.items[0].text);
  assert.ok(names.includes('Sheet3'), names.join(', '));
  assert.ok(!names.includes('Sheet4'), 'Sheet4 is state="hidden" in workbook.xml');
  assert.match(doc.warnings.join('\n'), /1 hidden sheet/);
});

test('XLSX: a chart in a sheet becomes a chart item with its title and its series as a table', () => {
  const doc = read(docling('xlsx', 'xlsx_01.xlsx'));
  const sheet2 = doc.pages.find((p) => p.items[0].text === 'Sheet2')!.items;
  const charts = sheet2.filter((i) => i.cls === 'chart');
  assert.equal(charts.length, 2);
  // The line chart plots column I against column G (rows 6–9) under the series name in I5.
  const line = charts.find((c) => c.table?.[0].length === 2)!;
  assert.equal(line.caption?.text, "'col-3'");
  assert.deepEqual(cellsOf(line), [
    ['', 'col-3'],
    ['1', '3'],
    ['2', '6'],
    ['3', '9'],
    ['4', '12'],
  ]);
  // Ordered by top row among the sheet's tables: the chart at row 22 comes after the table at row 5.
  const kinds = sheet2.map((i) => i.cls);
  assert.deepEqual(kinds, ['section_header', 'table', 'table', 'chart', 'table', 'chart']);
});

test('XLSX: a chart alone on its sheet keeps its data; a sheet picture is saved', () => {
  const doc = read(docling('xlsx', 'xlsx_03_chartsheet.xlsx'));
  const chart = doc.pages[1].items.find((i) => i.cls === 'chart')!;
  assert.equal(doc.pages[1].items[0].text, 'Duck Chart');
  assert.equal(chart.caption?.text, 'Wild Duck Observations by Year');
  assert.deepEqual(cellsOf(chart)[0], ['', 'Freshwater Ducks', 'Saltwater Ducks']);
  assert.deepEqual(cellsOf(chart)[6], ['2024', '180', '130']);
  const saved: string[] = [];
  const withPic = read(docling('xlsx', 'xlsx_01.xlsx'), (_d, ext) => {
    saved.push(ext);
    return `pic-${saved.length}.${ext}`;
  });
  const pics = withPic.pages.flatMap((p) => p.items).filter((i) => i.cls === 'picture');
  assert.deepEqual(
    pics.map((p) => p.imagePath),
    ['pic-1.png'],
  );
});

test('XLSX: numbers in a date format are dates, as openpyxl reads them for Docling', () => {
  const doc = read(docling('xlsx', 'xlsx_02_sample_sales_data.xlsm'));
  const t = cellsOf(doc.pages[0].items.find((i) => i.cls === 'table')!);
  assert.deepEqual(t[1].slice(0, 2), ['Widget A', '2024-01-01 00:00:00']);
  assert.equal(t[1][2], '5', 'a plain number stays a number');
  assert.equal(serialDateText(45292.5), '2024-01-01 12:00:00');
  assert.equal(serialDateText(0.75), '18:00:00');
  assert.equal(serialDateText(59), '1900-02-28 00:00:00', "before Excel's phantom 29 February");
  assert.equal(serialDateText(61), '1900-03-01 00:00:00');
  assert.equal(serialDateText(0, true), '00:00:00');
  assert.equal(serialDateText(1, true), '1904-01-02 00:00:00');
  assert.ok(isDateFormatCode('yyyy-mm-dd') && isDateFormatCode('[$-409]h:mm AM/PM'));
  assert.ok(!isDateFormatCode('0.00" days"') && !isDateFormatCode('General') && !isDateFormatCode('[Red]#,##0'));
});

test('XLSX: a label merged over the top of a table is text above it, not a table row', () => {
  const its = read(docling('xlsx', 'xlsx_09_section_label_header.xlsx')).pages[0].items;
  const i = its.findIndex((x) => x.cls === 'table');
  assert.equal(its[i - 1].cls, 'text');
  assert.equal(its[i - 1].text, 'Reading List');
  assert.deepEqual(cellsOf(its[i])[0].slice(0, 3), ['#', 'Genre', 'Sub-Genre']);
});

test('PPTX: shapes are read top to bottom, then left to right, placeholders at their layout position', () => {
  const slide2 = read(docling('pptx', 'powerpoint_sample.pptx')).pages[1].items;
  const texts = slide2.filter((i) => i.cls === 'text' || i.cls === 'title').map((i) => i.text);
  // The rectangle sits above the text frame that holds "Let's introduce a list", though it comes
  // later in the slide's shape tree; the title placeholder has no position of its own.
  assert.deepEqual(texts.slice(0, 3), [
    'Second slide title',
    'A rectangle shape with this text inside.',
    'Let’s introduce a list',
  ]);
});

test('PPTX: a chart keeps its title and its series as a table', () => {
  const its = read(docling('pptx', 'pptx_chart.pptx')).pages.flatMap((p) => p.items);
  const charts = its.filter((i) => i.cls === 'chart');
  assert.equal(charts.length, 2);
  assert.equal(charts[0].caption?.text, 'Wild Duck Observations by Year');
  assert.deepEqual(cellsOf(charts[0]).slice(0, 2), [
    ['', 'Freshwater Ducks', 'Saltwater Ducks'],
    ['2019', '120', '80'],
  ]);
  assert.equal(charts[0].table![0][1].tag, 'ched');
  assert.equal(charts[0].table![1][0].tag, 'rhed');
});

test('Markdown: raw HTML blocks are read as HTML (a table, a div of paragraphs and a list), comments dropped', () => {
  const its = read(docling('md', 'mixed.md')).pages[0].items;
  const table = its.find((i) => i.cls === 'table')!;
  assert.deepEqual(cellsOf(table)[0], ['Character', 'Name in German', 'Name in French', 'Name in Italian']);
  assert.equal(table.table![0][0].tag, 'ched', '<th> is a column header');
  assert.deepEqual(cellsOf(table)[4], ['Louie', 'Track', 'Loulou', 'Qua']);
  const after = its.slice(its.indexOf(table) + 1).map((i) => `${i.cls}:${i.text}`);
  assert.deepEqual(after, [
    'text:And here is more HTML:',
    'text:Some paragraph.',
    'text:Now a div — almost there...',
    'list_item:foo',
    'list_item:bar',
    'text:The end!',
  ]);
  const other = read(docling('md', 'mixed_without_h1.md')).pages[0].items;
  assert.ok(
    !other.some((i) => i.text.includes('<!--') || i.text.includes('This is HTML')),
    'an HTML comment is no text',
  );
});

test("HTML: what comes before the first heading is the page's chrome, furniture; a footer too; no heading, all body", () => {
  // A site's banner before its first heading (hyperlink_02.html: a logo picture, then "## Home").
  const banner = read(docling('html', 'hyperlink_02.html')).pages[0].items;
  assert.deepEqual(
    banner.filter((i) => i.cls !== 'page_header').map((i) => `${i.cls}:${i.text}`),
    ['section_header:Home'],
  );
  assert.deepEqual(
    banner.filter((i) => i.cls === 'page_header').map((i) => i.text),
    ['Image alt text'],
    'the chrome is kept as furniture, its words with it',
  );
  // Wikipedia's page: its menus come before the sidebar's first heading, the article after it.
  const wiki = read(docling('html', 'wiki_duck.html')).pages[0].items;
  const body = wiki.filter((i) => i.cls !== 'page_header' && i.cls !== 'page_footer');
  assert.ok(!body.some((i) => i.text === 'Main menu' || i.text === 'Jump to content'), 'menus are furniture');
  assert.ok(body.some((i) => i.cls === 'title' && i.text === 'Duck'));
  const page = (html: string) => readHtml(html).pages[0].items.map((i) => `${i.cls}:${i.text}`);
  assert.deepEqual(
    page(
      '<nav><a href="/">Home</a> <a href="/blog">Blog</a></nav><h1>Post</h1><p>Words.</p><footer><p>© 2026 Site</p></footer><p>After.</p>',
    ),
    ['page_header:Home Blog', 'title:Post', 'text:Words.', 'page_footer:© 2026 Site', 'text:After.'],
  );
  // A heading only inside a table does not start the body; with no other heading all is body.
  assert.deepEqual(page('<p>Intro</p><table><tr><th><h2>In a cell</h2></th></tr></table><ul><li>one</li></ul>'), [
    'text:Intro',
    'table:',
    'list_item:one',
  ]);
});

test('HTML: a list in a table cell keeps its markers; <pre><code> starts at its first line of code', () => {
  const cells = read(docling('html', 'table_03.html'))
    .pages[0].items.filter((i) => i.cls === 'table')
    .flatMap(cellsOf)
    .flat();
  assert.ok(cells.includes('- First item - Second item - Third item'), cells.join(' | '));
  const rich = read(docling('html', 'html_rich_table_cells.html'))
    .pages[0].items.filter((i) => i.cls === 'table')
    .flatMap(cellsOf)
    .flat();
  assert.ok(rich.includes('1. Fly south in winter 2. Build nest on ground'), rich.join(' | '));
  const code = read(docling('html', 'html_code_snippets.html')).pages[0].items.find((i) => i.cls === 'code')!;
  assert.ok(code.text.startsWith('from docling.document_converter import'), JSON.stringify(code.text.slice(0, 20)));
});

test('DOCX: a chart in a drawing is a chart item with its series as a table', () => {
  const its = read(docling('docx', 'drawingml.docx')).pages[0].items;
  const chart = its.find((i) => i.cls === 'chart')!;
  assert.ok(chart, its.map((i) => i.cls).join(' '));
  assert.deepEqual(cellsOf(chart)[0], ['', 'Series 1', 'Series 2', 'Series 3']);
  assert.deepEqual(cellsOf(chart)[1], ['Category 1', '4.3', '2.4', '2']);
});

test('DOCX: a paragraph opening with a checkbox content control is a checkbox item; in a cell it reads "- [x]"', () => {
  const its = read(docling('docx', 'docx_checkboxes.docx')).pages[0].items;
  const boxes = its.filter((i) => i.cls === 'checkbox_selected' || i.cls === 'checkbox_unselected');
  assert.deepEqual(boxes.map((b) => `${b.cls === 'checkbox_selected' ? 'x' : ' '} ${b.text}`).slice(0, 2), [
    'x Design',
    'x Implementation',
  ]);
  assert.equal(boxes[2].cls, 'checkbox_unselected');
  const cells = its
    .filter((i) => i.cls === 'table')
    .flatMap(cellsOf)
    .flat();
  assert.ok(
    cells.some((c) => c.includes('- [x] Orange juice - [ ] Tea')),
    cells.join(' | '),
  );
});

test("charts: the kind from the chart part's plot, in docling's classes (its readers' rule: column/bar, stacked or 3-D, a bar chart)", () => {
  const kinds = (fmt: string, name: string) =>
    read(docling(fmt, name))
      .pages.flatMap((p) => p.items)
      .filter((i) => i.cls === 'chart')
      .map((i) => i.chartKind);
  assert.deepEqual(kinds('xlsx', 'xlsx_01.xlsx'), ['line_chart', 'scatter_chart']);
  assert.deepEqual(kinds('xlsx', 'xlsx_03_chartsheet.xlsx'), ['bar_chart']);
  assert.deepEqual(kinds('docx', 'drawingml.docx'), ['line_chart']);
  // The second is a 3-D bar chart: Docling's PowerPoint reader cannot type it ("Other chart").
  assert.deepEqual(kinds('pptx', 'pptx_chart.pptx'), ['bar_chart', 'bar_chart']);
});
