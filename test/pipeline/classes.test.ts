import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allItems, analyzeCorpusPdf } from './analyze';

test('title, section headers and nested lists from a Chromium page', async () => {
  const items = allItems(await analyzeCorpusPdf('docling-src-rendered/html/example_03.html.pdf'));
  const find = (t: string) => items.find((i) => i.text === t);
  assert.equal(find('Example Document')?.cls, 'title');
  assert.equal(find('Introduction')?.cls, 'section_header');
  assert.equal(find('Introduction')?.level, 1);
  // Bullets drawn as vector circles still make list items; nesting from indentation.
  assert.deepEqual(
    [find('First item in unordered list')?.cls, find('First item in unordered list')?.level],
    ['list_item', 0],
  );
  assert.deepEqual(
    [find('Nested item 1')?.cls, find('Nested item 1')?.level, find('Nested item 1')?.ordered],
    ['list_item', 1, false],
  );
  const ordered = find('Nested ordered item 1');
  assert.deepEqual(
    [ordered?.cls, ordered?.level, ordered?.ordered],
    ['list_item', 1, true],
    'marker "1." stripped, ordered',
  );
});

test('heading levels follow the font-size ranks of a Word document', async () => {
  const items = allItems(await analyzeCorpusPdf('docling-src-rendered/docx/unit_test_headers.docx.pdf'));
  const h = (t: string) => items.find((i) => i.text === t && i.cls === 'section_header');
  assert.equal(items.find((i) => i.text === 'Test Document')?.cls, 'title');
  assert.equal(h('Section 1')?.level, 1);
  assert.equal(h('Section 1.1')?.level, 2);
  assert.ok(items.some((i) => i.cls === 'text' && i.text === 'Paragraph 1.1'));
});

test('Word lists with private-use bullets nest by indentation', async () => {
  const items = allItems(await analyzeCorpusPdf('docling-src-rendered/docx/docx_lists.docx.pdf'));
  const lists = items.filter((i) => i.cls === 'list_item');
  assert.ok(lists.length >= 10, `list items: ${lists.length}`);
  assert.ok(
    lists.every((i) => !/^[\uf0b7•-]/.test(i.text)),
    'markers stripped',
  );
  assert.ok(lists.some((i) => i.text === 'List item 1.1' && i.level === 1));
  assert.ok(lists.some((i) => i.text === 'List item 1.1.1' && i.level === 2));
  assert.ok(lists.some((i) => i.text === 'List item a' && i.ordered === true));
});

test('monospace blocks become code with their line breaks', async () => {
  const items = allItems(await analyzeCorpusPdf('docling-src-rendered/html/html_code_snippets.html.pdf'));
  const code = items.find((i) => i.cls === 'code' && i.text.includes('converter = DocumentConverter()'));
  assert.ok(code, 'code block found');
  assert.match(code.text, /\n/, 'lines kept');
});

test('a figure caption is attached to its picture; italic run-in headings are found', async () => {
  const items = allItems(await analyzeCorpusPdf('docling/pdf/amt_handbook_sample.pdf'));
  const pics = items.filter((i) => i.cls === 'picture');
  assert.ok(pics.length >= 2, `pictures: ${pics.length}`);
  const captioned = pics.find((p) => p.caption?.text.startsWith('Figure 7-27'));
  assert.ok(captioned, 'Figure 7-27 caption attached to a picture');
  assert.equal(captioned.caption?.cls, 'caption');
  assert.equal(items.find((i) => i.text === 'Boots Self-Locking Nut')?.cls, 'section_header');
  // The figure's labels ("Nut case", "Keyway") belong to the figure, not the text flow.
  assert.ok(!items.some((i) => i.cls === 'text' && i.text === 'Keyway'));
});
