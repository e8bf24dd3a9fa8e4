import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { analyzeCorpusPdf, options } from './analyze';
import { furnitureByForm, isBandStamp, isPageNumber, markFurniture } from '../../server/convert/furniture';
import { analyzePage, openPdf } from '../../server/pipeline/index';
import type { PageAnalysis } from '../../server/model/analysis';
import type { DocItem } from '../../server/model/items';
import { pageToMarkdown } from '../../server/doctags/markdown';
import { scoreDocument } from '../../eval/metrics/score';

test('repeated footers and page numbers across pages become furniture', async () => {
  const pages = await analyzeCorpusPdf('docling/pdf/redp5110_sampled.pdf', {}, [2, 3, 4, 5, 6]);
  const footers = pages.flatMap((p) => p.items.filter((i) => i.cls === 'page_footer').map((i) => i.text));
  assert.ok(footers.filter((t) => t.startsWith('© Copyright IBM Corp. 2014')).length >= 2, footers.join(' | '));
  assert.ok(
    footers.some((t) => t === 'iii' || t === '1' || t === '2'),
    'page numbers',
  );
  // Body text is never furniture.
  const body = pages.flatMap((p) => p.items.filter((i) => i.cls === 'text'));
  assert.ok(body.length > 5);
});

test('a running header repeated on the pages of a Korean report', async () => {
  const pages = await analyzeCorpusPdf('docling/pdf/normal_4pages.pdf');
  const headers = pages.flatMap((p) => p.items.filter((i) => i.cls === 'page_header').map((i) => i.text));
  assert.ok(headers.filter((t) => t === '이슈와 논점').length >= 2, headers.join(' | '));
});

test('page-number shapes', () => {
  for (const t of ['12', '- 3 -', 'Page 4', 'page 2 of 10', '3/10', 'xi']) assert.ok(isPageNumber(t), t);
  for (const t of ['Introduction', '2020 results', 'Figure 3']) assert.ok(!isPageNumber(t), t);
});

// One journal page by itself (eval/gen/furniture.main.ts typesets it with XeLaTeX/fancyhdr and
// Chromium): no neighbouring page to repeat its running head, page number or stamps.
for (const producer of ['xelatex', 'chromium'] as const) {
  test(`a page alone (${producer}): running head, page number and margin stamps are furniture by position and form`, async () => {
    const file = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'furniture', `page.${producer}.pdf`);
    const doc = await openPdf(file);
    let page: PageAnalysis;
    try {
      page = await analyzePage(doc, 1, options());
    } finally {
      await doc.close();
    }
    markFurniture([page], 0);
    const furniture = page.items.filter((i) => i.cls === 'page_header' || i.cls === 'page_footer').map((i) => i.text);
    for (const t of [
      'Journal of River Studies 12 (2026) 101–118',
      'R. Writer and B. Reader',
      '104',
      'Downloaded from https://rivers.example.org/article/12/104 on 3 May 2026',
      'Accepted manuscript. Not the version of record.',
    ]) {
      assert.ok(furniture.includes(t), `"${t}" should be furniture: ${JSON.stringify(furniture)}`);
    }
    // The body is whole and in order: the side stamp no longer cuts the last paragraph.
    const md = pageToMarkdown(page.items).markdown;
    const s = scoreDocument(readFileSync(join(dirname(file), 'page.md'), 'utf8'), md, 'markdown');
    assert.ok(s.ned < 0.01, `text distance ${s.ned.toFixed(4)}:\n${md}`);
    assert.equal(s.headingF1, 1);
  });
}

test('furniture by form keeps headings, sentences and bottom text that is not a stamp', () => {
  const page = {
    page: 1,
    width: 600,
    height: 800,
    items: [],
    furnitureCandidates: [],
    ocr: false,
    rotation: 0,
    warnings: [],
  } as PageAnalysis;
  const at = (text: string, y: number, cls: DocItem['cls'] = 'text', x0 = 100): DocItem => ({
    cls,
    text,
    bbox: { x0, y0: y, x1: x0 + 300, y1: y + 10 },
    grid: [0, 0, 0, 0],
  });
  assert.equal(furnitureByForm(at('Annals of the Survey, vol. 3', 20), page), true);
  assert.equal(furnitureByForm(at('1 Introduction', 20, 'section_header'), page), false);
  assert.equal(furnitureByForm(at('The survey began in the spring of that year.', 20), page), false);
  assert.equal(
    furnitureByForm(at('1 The gauge was read at noon each day', 770), page),
    false,
    'a footnote at the foot of the page',
  );
  assert.equal(furnitureByForm(at('© 2026 The Authors. Published by River Press.', 770), page), true);
  const turned: DocItem = {
    cls: 'text',
    text: 'arXiv:2601.01234v2 [physics.geo-ph] 4 Jan 2026',
    bbox: { x0: 12, y0: 250, x1: 24, y1: 560 },
    grid: [0, 0, 0, 0],
  };
  assert.equal(furnitureByForm(turned, page), true, 'up the side margin');
  // Issue 31: what a document system prints in its bands, and the sentences and footnotes that
  // look like it.
  assert.equal(furnitureByForm(at('Jonathan Kew  March 29, 2004  Rev: 20', 770), page), true);
  assert.equal(furnitureByForm(at('The TECkit Language  Page 1 of 11', 770), page), true);
  assert.equal(furnitureByForm(at('Service Manual  P/N 119-036', 770), page), true);
  assert.equal(furnitureByForm(at('Date: December 2, 2013.', 770), page), false, 'a footnote sentence');
  assert.equal(furnitureByForm(at('1 Received March 3, 2004', 770), page), false, 'a footnote led by its mark');
  assert.equal(furnitureByForm(at('Review of the survey methods', 770), page), false, '"Review" is no revision');
  assert.equal(
    furnitureByForm(
      at('This is the author’s version of the work. It is posted here for your personal use.', 770),
      page,
    ),
    true,
  );
});

test('isBandStamp: page references, revision and part numbers, dates', () => {
  for (const t of [
    'Page 4 of 11',
    '2 sur 7',
    'Rev: 20',
    'Revision 2.4',
    'P/N 119-036',
    'Doc. No. 4711',
    'March 29, 2004',
    '06/12/2023, 14:12',
    '2014-03-07',
    '28 Dec 2018',
  ])
    assert.ok(isBandStamp(t), t);
  for (const t of ['Review of the methods', 'Introduction', 'Part of the problem', 'in 2004 the survey', 'page layout'])
    assert.ok(!isBandStamp(t), t);
});

test('a section number read as a list label beside the page number at the top is a running head; a list item without that mate stays', () => {
  const item = (text: string, cls: DocItem['cls'], x0: number, x1: number, y: number): DocItem => ({
    cls,
    text,
    bbox: { x0, y0: y, x1, y1: y + 9 },
    grid: [0, 0, 0, 0],
  });
  const page = (items: DocItem[]): PageAnalysis => ({
    page: 20,
    width: 612,
    height: 792,
    items,
    furnitureCandidates: items.map((_, i) => i),
    ocr: false,
    rotation: 0,
    warnings: [],
  });
  // amsldoc's even pages: "16 … 4. MISCELLANEOUS MATHEMATICAL FEATURES" on one row.
  const head = page([
    item('16', 'text', 160, 172, 99),
    item('MISCELLANEOUS MATHEMATICAL FEATURES', 'list_item', 294, 500, 100),
  ]);
  markFurniture([head], 0);
  assert.deepEqual(
    head.items.map((i) => i.cls),
    ['page_header', 'page_header'],
  );
  // The same list item beside a row mate that is no page number, or alone, stays a list item.
  const mate = page([
    item('Draft', 'text', 160, 190, 99),
    item('MISCELLANEOUS MATHEMATICAL FEATURES', 'list_item', 294, 500, 100),
  ]);
  markFurniture([mate], 0);
  assert.equal(mate.items[1]!.cls, 'list_item');
  const alone = page([item('MISCELLANEOUS MATHEMATICAL FEATURES', 'list_item', 294, 500, 100)]);
  markFurniture([alone], 0);
  assert.equal(alone.items[0]!.cls, 'list_item');
});

test('a firm’s name set alone at the foot is furniture though it ends in "Inc."; a sentence ending so is not', () => {
  const body: DocItem = {
    cls: 'text',
    text: 'Linking to a website.',
    bbox: { x0: 60, y0: 300, x1: 520, y1: 310 },
    grid: [0, 0, 0, 0],
  };
  const foot = (text: string): PageAnalysis => ({
    page: 1,
    width: 612,
    height: 792,
    items: [body, { cls: 'text', text, bbox: { x0: 480, y0: 748, x1: 550, y1: 756 }, grid: [0, 0, 0, 0] }],
    furnitureCandidates: [1],
    ocr: false,
    rotation: 0,
    warnings: [],
  });
  const firm = foot('Antenna House, Inc.');
  assert.equal(furnitureByForm(firm.items[1]!, firm), true);
  const sentence = foot('It was funded by Acme, Inc.');
  assert.equal(furnitureByForm(sentence.items[1]!, sentence), false);
});
