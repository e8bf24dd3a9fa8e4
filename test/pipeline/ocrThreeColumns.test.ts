/**
 * Scanned three-column pages (issue 15): the committed Chromium fixture (CSS columns, justified,
 * 10 pt gutters) rendered at 200 dpi, turned 0.5°, given sensor noise and written into an
 * image-only PDF, then converted through the whole pipeline with OCR.
 *  - Page 3: narrow justified columns stretch word spaces so far that the text detector cuts a
 *    line into pieces ("language            temperature"); the pieces must be one line again, in
 *    order, not columns of their own (server/layout/lines/justifiedOcr.ts).
 *  - Page 5: three short columns on one baseline grid: one column beside the other two pairs up
 *    row by row like a table's columns, yet it is prose and is read column by column
 *    (xycut.ts `proseLines`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pagesToMarkdown } from '../../server/export/images';
import { analyzeScannedPage } from './scannedPage';

const FIXTURE = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'multicol', 'threecol.chromium.pdf');

async function scannedPageMarkdown(page: number): Promise<string> {
  return pagesToMarkdown(
    [await analyzeScannedPage(FIXTURE, page, { dpi: 200, skewDeg: 0.5, noise: 6, seed: 11 })],
    false,
  );
}

/** Markdown blocks with whitespace and OCR's stray periods after words evened out. */
function blocksOf(md: string): string[] {
  return md.split(/\n\s*\n/).map((b) => b.replace(/\s+/g, ' ').trim());
}

/** Index of the block holding all of `words` in this order (whitespace-insensitive). */
function blockWith(blocks: string[], words: string): number {
  const re = new RegExp(
    words
      .split(/\s+/)
      .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[\\s.,]+'),
  );
  return blocks.findIndex((b) => re.test(b));
}

test('a scanned narrow justified column: a line the detector cut at its wide spaces is read as one line', async () => {
  const md = await scannedPageMarkdown(3);
  const blocks = blocksOf(md);
  // Column 1, lines split by the detector into pieces on the original scan of the eval set.
  for (const run of [
    'which account gradual language temperature annual surveyor when many village other however independent increases method',
    'Result understanding compares into transformation interpretation within account however, small environmental traditional history with village temperature also',
  ]) {
    assert.ok(blockWith(blocks, run) >= 0, `"${run}" should be one run of text:\n${md.slice(0, 4000)}`);
  }
});

test('three short scanned columns on one baseline grid are read column by column', async () => {
  const md = await scannedPageMarkdown(5);
  const blocks = blocksOf(md);
  const paragraphs = [
    'Information station while however uncertain lighthouse sample at also most of reliable observation was reduces', // column 1
    'Account measurement opportunity it supports describes be a modern considerable which', // column 2
    'Construction agricultural organization comparison both summer', // column 2's foot
    'Opportunity to circumstances during gives most journey explains surveyor agricultural while', // column 3
    'The were neighbouring remains with over result is returns among from more, system gives a table gradual record early understanding southern agricultural',
  ];
  let prev = -1;
  for (const p of paragraphs) {
    const i = blockWith(blocks, p);
    assert.ok(i >= 0, `"${p}" should be one run of text:\n${md}`);
    assert.ok(i >= prev, `"${p.slice(0, 40)}…" should come after the text before it:\n${md}`);
    prev = i;
  }
});
