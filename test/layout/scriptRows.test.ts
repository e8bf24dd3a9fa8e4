/**
 * Issue 31 class 2: a raised script that opens its line's row must not become the row's measure.
 * The LaTeX logo sets a small raised "A" and a lowered "E"; the "A" sorts first, opened the row,
 * and the "E", measured from the "A", fell out of the line: "LAT X support for Open Sans" with an
 * "E" line under it, and a paragraph broken at "It includes Type 1 | E versions of the fonts".
 * Real pages: pdf.js's Open Sans documentation (Open Sans has small ascents, so the lowered "E"
 * sits near the edge of its line) and an AMS-LaTeX test page whose subscripts had the same fate
 * after a raised "−1". Look-alikes that must keep their lines: a report set in three columns of
 * different type sizes (rows run across the page; a larger column beside a smaller one merged two
 * lines of it when any larger span re-measured the row) and a festival timetable of small times.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPdf } from '../../server/pipeline/index';
import { readPage } from '../../server/pipeline/pageContent';
import { buildLines, findGutters } from '../../server/layout/lines/index';
import { corpusPath } from '../helpers/corpus';
import { fileMarkdown } from './convertFile';

async function linesOf(rel: string, pageNo: number): Promise<string[]> {
  const doc = await openPdf(corpusPath(rel));
  try {
    const raw = await readPage(await doc.doc.getPage(pageNo), pageNo);
    const spans = raw.content.spans;
    return buildLines(spans, findGutters(spans, raw.content.width)).map((l) => l.text);
  } finally {
    await doc.close();
  }
}

test('the LaTeX logo stays in its line: its lowered E is not a line of its own (Open Sans documentation)', async () => {
  const lines = await linesOf('pdfjs-test-pdfs/issue10640.pdf', 1);
  assert.ok(lines.includes('LATEX support for Open Sans'), lines.slice(0, 4).join(' | '));
  assert.ok(
    lines.some((l) => l.startsWith('This package provides support for this font in LATEX. It includes Type')),
    lines.filter((l) => l.includes('package')).join(' | '),
  );
  assert.deepEqual(
    lines.filter((l) => l.trim() === 'E'),
    [],
  );
  // The paragraph reads on across the logo's line (OCR off: the old-style "1" has no text).
  const md = await fileMarkdown(corpusPath('pdfjs-test-pdfs/issue10640.pdf'), [1]);
  const para = md.split('\n\n').find((p) => p.includes('It includes Type'));
  assert.ok(para?.includes('versions of the fonts, converted for this package using FontForge'), para);
  assert.ok(!/\bE versions\b/.test(md), 'no stray E before "versions"');
});

test('subscripts after a raised script stay in their line (AMS-LaTeX symbols in running text)', async () => {
  const lines = await linesOf('py-pdf-sample-files/009-pdflatex-geotopo/GeoTopo-komprimiert.pdf', 60);
  assert.ok(
    lines.some((l) => l.includes('x0 ∈ X, y0 ∈ p−1(x0)')),
    lines.filter((l) => l.includes('Überlagerung')).join(' | '),
  );
  assert.ok(!lines.some((l) => l.trim() === '0'), 'no line of lone subscripts');
});

test('look-alikes keep their lines: columns of different type sizes, a timetable of small times', async () => {
  const report = await linesOf('pdfjs-test-pdfs/chrome-text-selection-markedContent.pdf', 1);
  assert.ok(
    report.includes('Kreate estimates that its revenue in 2025 will increase and be in the'),
    report.filter((l) => l.includes('Kreate estimates')).join(' | '),
  );
  assert.ok(report.some((l) => l.startsWith('range of 290-310 MEUR')));
  const times = await linesOf('pdfjs-test-pdfs/issue840.pdf', 1);
  assert.equal(times.filter((l) => l === '11:45').length, 3, 'one "11:45" in each of three columns');
  assert.equal(times.filter((l) => l === '11:50').length, 3);
  assert.ok(!times.some((l) => /\d\d:\d\d\d\d:\d\d/.test(l)), 'no two times glued into one line');
});
