/**
 * Issue 31 class 2, text a reader cannot see: strings drawn in text rendering mode 3 (neither
 * filled nor stroked) or 7 (clip only) are in pdf.js's text content like any other. TCPDF writes
 * "Powered by TCPDF (www.tcpdf.org)" invisibly on its pages (a Metromile declarations page from
 * pdf.js's test PDFs): it left the Markdown. A scanned page whose OCR layer is invisible text over
 * the page image (pdf.js's issue5747.pdf) keeps that text: the image shows it. The page checks are
 * the real-world set's person-checked tests.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { invisibleSpan, matchKey, type TextRuns } from '../../server/pdf/invisibleText';
import { failingSetTests } from '../layout/setTests';

const box = { x0: 10, y0: 10, x1: 110, y1: 20 };

test('invisibleSpan: only text drawn invisibly, drawn nowhere visibly, and away from images', () => {
  const runs: TextRuns = {
    invisible: matchKey('Powered by TCPDF (www.tcpdf.org)'),
    visible: matchKey('Page 1 of 1 Powered'),
  };
  assert.equal(invisibleSpan('Powered by TCPDF (www.tcpdf.org)', box, runs, []), true);
  // pdf.js spaces the words differently from the operator list's glyphs.
  assert.equal(invisibleSpan('Powered  by TCPDF(www.tcpdf.org)', box, runs, []), true);
  // Also drawn visibly: kept.
  assert.equal(invisibleSpan('Powered', box, runs, []), false);
  // Over an image (an OCR layer over a scan): kept.
  assert.equal(
    invisibleSpan('Powered by TCPDF (www.tcpdf.org)', box, runs, [{ x0: 0, y0: 0, x1: 200, y1: 200 }]),
    false,
  );
  // Not among the invisible runs: kept.
  assert.equal(invisibleSpan('Page 1 of 1', box, runs, []), false);
  assert.equal(invisibleSpan('anything', box, { invisible: '', visible: '' }, []), false);
});

test("real pages: TCPDF's invisible line leaves the page; the invisible OCR layer over a scan stays", async () => {
  const ids = [
    'insurance-decl-p1-10',
    // The visible text of the same page stays.
    'insurance-decl-p1-04',
    'insurance-decl-p1-08',
    'insurance-decl-p1-09',
    // issue5747.pdf: every word is drawn in mode 3 over the scanned image.
    'scan-lorem-p1-01',
    'scan-lorem-p1-02',
    'scan-lorem-p1-03',
  ];
  const { failed, ran } = await failingSetTests(ids);
  assert.equal(ran.length, ids.length);
  assert.deepEqual(failed, []);
});
