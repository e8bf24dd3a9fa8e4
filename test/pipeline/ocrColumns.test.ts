/**
 * A scanned two-column page: the committed XeLaTeX fixture rendered at 200 dpi, turned 0.8° (a
 * sheet laid askew on the glass, as eval/gen/multicol/scan.ts makes the scanned variants), given
 * sensor noise and written into an image-only PDF, then converted through the whole pipeline
 * with OCR. Over a page height the skew moves a column gutter sideways by more than its width;
 * the columns must still be read one after the other and their lines never mixed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pagesToMarkdown } from '../../server/export/images';
import { analyzeScannedPage } from './scannedPage';

const FIXTURE = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'multicol', 'twocol-c.xelatex.pdf');

/** Page 1's paragraphs in reading order (twocol-c.md): a start and an end of each. */
const PARAGRAPHS: { start: string; end: string }[] = [
  { start: 'Mountain forest traveller', end: 'many winter without' }, // left column
  { start: 'During practical interpretation', end: 'suggests development' },
  { start: 'Uncertain surrounding both', end: 'reduces steady later' }, // left column's foot
  { start: 'Garden northern after', end: 'each local uncertain' }, // right column
];

test('a scanned, skewed two-column page is read column by column, no line mixing the columns', async () => {
  const md = pagesToMarkdown(
    [await analyzeScannedPage(FIXTURE, 1, { dpi: 200, skewDeg: 0.8, noise: 6, seed: 5 })],
    false,
  );
  const blocks = md.split(/\n\s*\n/).map((b) => b.replace(/\s+/g, ' '));
  const at = (s: string) => {
    const i = blocks.findIndex((b) => b.includes(s));
    assert.ok(i >= 0, `"${s}" not found in the OCR Markdown:\n${md.slice(0, 3000)}`);
    return i;
  };
  let prev = -1;
  for (const p of PARAGRAPHS) {
    const i = at(p.start);
    // The paragraph is whole (its lines joined, end included) and holds no other paragraph's
    // words: a line that ran across the gutter would put right-column words into a left one.
    assert.ok(blocks[i].includes(p.end), `paragraph "${p.start}…" should end with "${p.end}": ${blocks[i]}`);
    for (const q of PARAGRAPHS)
      if (q !== p)
        assert.ok(
          !blocks[i].includes(q.start) && !blocks[i].includes(q.end),
          `paragraph "${p.start}…" holds words of "${q.start}…": ${blocks[i]}`,
        );
    assert.ok(i > prev, `"${p.start}" should come after the paragraph before it`);
    prev = i;
  }
  // The right column's heading follows the left column's paragraphs.
  assert.ok(at('Observations along the river') > at('Uncertain surrounding both'));
});
