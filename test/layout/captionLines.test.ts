/**
 * A numbered caption line centred in its column after a line that ends a sentence opens a block
 * of its own (server/layout/blocks/index.ts `captionLine`; issue 40 item 3): on an OCR'd page the
 * sizes are estimates, and "Table 1: …" set under a paragraph at its line pitch was that
 * paragraph's last line. The real page (fails before the rule) is in
 * test/tables/ocrGutterTables.test.ts. Here the look-alike on plain OCR word boxes: a paragraph's
 * line that starts "Table 2. The …" at the column's left edge, after a sentence's end, stays in
 * the paragraph.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { layoutPage } from '../../server/layout/index';
import type { TextSpan } from '../../server/model/content';

/** One OCR'd line of words laid from x0 (`cw` pt per character, 4 pt spaces) at row y. */
function line(y: number, x0: number, text: string, cw = 5): TextSpan[] {
  const out: TextSpan[] = [];
  let x = x0;
  for (const w of text.split(' ')) {
    out.push({
      text: w,
      bbox: { x0: x, y0: y, x1: x + cw * w.length, y1: y + 13 },
      fontSize: 13,
      fontName: 'ocr',
      monospace: false,
    });
    x += cw * w.length + 4;
  }
  out[out.length - 1]!.eol = true;
  return out;
}

const FULL = [
  'river valley journey ancient harbour ledger season station market',
  'orchard bridge window island shore garden council village record',
  'engineer surveyor evening morning summer winter account pattern sample',
  'railway weather system figure history region library measure report',
];

function texts(spans: TextSpan[]): string[] {
  const laid = layoutPage({
    content: { page: 1, width: 612, height: 792, spans, rules: [], graphics: [] },
    stats: { bodySize: 13, headingSizes: [] },
    marks: [],
  });
  return laid.items.map((i) => i.text);
}

test('look-alike: a paragraph line starting "Table 2. The" at the left edge stays in the paragraph', () => {
  const spans = FULL.flatMap((t, k) => line(100 + 14 * k, 60, t));
  spans.push(...line(156, 60, 'orchard bridge window island shore as shown in.'));
  spans.push(...line(170, 60, 'Table 2. The results below show each station by its region and year'));
  spans.push(...line(184, 60, 'engineer surveyor evening morning summer winter account pattern sample'));
  const out = texts(spans);
  assert.ok(
    out.some((t) => t.includes('shown in. Table 2. The results')),
    `the paragraph was cut at its "Table 2." line: ${JSON.stringify(out)}`,
  );
});
