/**
 * Stream order as evidence (issue 15): followed where it reads like the page, overruled by
 * geometry where it does not (a content stream written row by row across two columns).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzePage, openPdf } from '../../server/pipeline/index';
import { plausibleOrder } from '../../server/layout/order/streamOrder';
import { joinPageMarkdown, pageSeparator, tableContinuation } from '../../server/convert/pageJoin';
import { writePlacedPdf, type PlacedLine } from '../helpers/pdfWriter';
import { options } from '../pipeline/analyze';

const LEFT = Array.from(
  { length: 14 },
  (_, i) => `Left column line ${String(i + 1).padStart(2, '0')} of the first story told in full by its writer`,
);
const RIGHT = Array.from(
  { length: 14 },
  (_, i) => `Right column line ${String(i + 1).padStart(2, '0')} of the next one told in full by its writer`,
);

async function bodyOf(lines: PlacedLine[]): Promise<string> {
  const file = join(mkdtempSync(join(tmpdir(), 'folio-so-')), 'page.pdf');
  writeFileSync(file, writePlacedPdf([{ width: 612, height: 792, lines }]));
  const doc = await openPdf(file);
  try {
    const page = await analyzePage(doc, 1, options());
    return page.items.map((i) => i.text).join('\n');
  } finally {
    await doc.close();
  }
}

const at = (i: number) => 120 + i * 14;

test('a content stream written row by row across two columns: geometry wins', async () => {
  // Drawn in the order left 1, right 1, left 2, right 2, …: the stream interleaves the columns.
  const lines: PlacedLine[] = [];
  for (let i = 0; i < LEFT.length; i++) {
    lines.push({ text: LEFT[i], x: 72, y: at(i), size: 9 });
    lines.push({ text: RIGHT[i], x: 320, y: at(i), size: 9 });
  }
  const text = await bodyOf(lines);
  const lastLeft = text.indexOf('Left column line 14');
  const firstRight = text.indexOf('Right column line 01');
  assert.ok(lastLeft >= 0 && firstRight >= 0, text);
  assert.ok(lastLeft < firstRight, `the whole left column comes first:\n${text}`);
});

test('a stream in reading order is followed: a centred line above one column comes first', async () => {
  // A heading line centred over the right half, drawn first; then the columns in order.
  const lines: PlacedLine[] = [{ text: 'A centred note set above the columns', x: 330, y: 96, size: 9 }];
  LEFT.forEach((t, i) => lines.push({ text: t, x: 72, y: at(i), size: 9 }));
  RIGHT.forEach((t, i) => lines.push({ text: t, x: 320, y: at(i), size: 9 }));
  const text = await bodyOf(lines);
  const note = text.indexOf('A centred note');
  assert.ok(
    note >= 0 && note < text.indexOf('Left column line 01'),
    `the note is read before the left column:\n${text}`,
  );
  assert.ok(text.indexOf('Left column line 14') < text.indexOf('Right column line 01'), text);
});

test('plausible page moves: down a column, up to the next column, down-left to a new band', () => {
  const box = (x0: number, y0: number, x1: number, y1: number) => ({ x0, y0, x1, y1 });
  const col1 = [box(50, 100, 280, 110), box(50, 112, 280, 122)];
  const col2 = [box(310, 100, 540, 110), box(310, 112, 540, 122)];
  const below = box(50, 200, 540, 210);
  assert.equal(plausibleOrder([...col1, ...col2, below], []), true);
  // Back up the same column, or rows read across a gutter, are not moves a reader makes.
  assert.equal(plausibleOrder([col1[1], col1[0]], []), false);
  assert.equal(plausibleOrder([col1[0], col2[0], col1[1], col2[1]], [{ x0: 282, x1: 308 }]), false);
});

test('a paragraph broken by a page break is joined, and dehyphenated; a finished one is not', () => {
  assert.equal(
    joinPageMarkdown(['## A\n\nThe river runs to the', 'sea by the old mill.']),
    '## A\n\nThe river runs to the sea by the old mill.\n',
  );
  assert.equal(
    joinPageMarkdown(['The survey was careful and ex-', 'tensive in every season.']),
    'The survey was careful and extensive in every season.\n',
  );
  assert.equal(joinPageMarkdown(['It ended here.', 'and a new page.']), 'It ended here.\n\nand a new page.\n');
  assert.equal(pageSeparator('The river runs to the', '## Heading').sep, '\n\n');
  assert.equal(pageSeparator('| a | b |', 'more text').sep, '\n\n');
});

test('a table that runs over a page break is one table; a repeated header row is dropped', () => {
  const first = 'Table 1: Stations.\n\n| Station | Mean |\n| - | - |\n| North 1 | 16.4 |';
  // The continuation: Markdown printed its first body row as a header.
  assert.equal(
    joinPageMarkdown([first, '| Ridge 2 | 34.9 |\n| - | - |\n| Ridge 3 | 23.9 |\n\nAfter the table.']),
    'Table 1: Stations.\n\n| Station | Mean |\n| - | - |\n| North 1 | 16.4 |\n| Ridge 2 | 34.9 |\n| Ridge 3 | 23.9 |\n\nAfter the table.\n',
  );
  // A producer that repeats the header on the next page.
  assert.equal(
    joinPageMarkdown([first, '| Station | Mean |\n| - | - |\n| Ridge 2 | 34.9 |']),
    'Table 1: Stations.\n\n| Station | Mean |\n| - | - |\n| North 1 | 16.4 |\n| Ridge 2 | 34.9 |\n',
  );
  // Another table (other columns), or text between: two tables.
  assert.equal(tableContinuation(first, '| a | b | c |\n| - | - | - |\n| 1 | 2 | 3 |'), undefined);
  assert.equal(tableContinuation(first + '\n\nNotes under the table.', '| Ridge 2 | 34.9 |\n| - | - |'), undefined);
  assert.equal(tableContinuation(first, 'Text first.\n\n| Ridge 2 | 34.9 |\n| - | - |'), undefined);
});
