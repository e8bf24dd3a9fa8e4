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
import { leaveOutHidden, matchKey } from '../../server/pdf/invisibleText';
import type { TextRun } from '../../server/pdf/hiddenText';
import { failingSetTests } from '../layout/setTests';

const box = { x0: 10, y0: 10, x1: 110, y1: 20 };
const run = (text: string, hidden?: TextRun['hidden'], bbox = box): TextRun => ({
  key: matchKey(text),
  text,
  bbox,
  ...(hidden ? { hidden } : {}),
});

test('leaveOutHidden: only text drawn invisibly where it stands, drawn nowhere visibly there', () => {
  const tcpdf = 'Powered by TCPDF (www.tcpdf.org)';
  const spans = (t: string) => [{ text: t, bbox: box }];
  assert.deepEqual(leaveOutHidden(spans(tcpdf), [run(tcpdf, 'invisible')]).spans, []);
  // pdf.js spaces the words differently from the operator list's glyphs.
  assert.deepEqual(leaveOutHidden(spans('Powered  by TCPDF(www.tcpdf.org)'), [run(tcpdf, 'invisible')]).spans, []);
  // Also drawn visibly at the same place: kept.
  assert.equal(leaveOutHidden(spans('Powered'), [run(tcpdf, 'invisible'), run('Powered')]).spans.length, 1);
  // Hidden elsewhere on the page: kept.
  const far = { x0: 10, y0: 500, x1: 110, y1: 510 };
  assert.equal(leaveOutHidden(spans(tcpdf), [run(tcpdf, 'invisible', far), run('x')]).spans.length, 1);
  // Not among the hidden runs: kept; nothing hidden: the same array.
  assert.equal(leaveOutHidden(spans('Page 1 of 1'), [run(tcpdf, 'invisible'), run('Page 1 of 1')]).spans.length, 1);
  const plain = spans('anything');
  assert.equal(leaveOutHidden(plain, [run('anything')]).spans, plain);
});

test('leaveOutHidden: a span pdf.js merged from a visible run and a hidden one loses the hidden characters', () => {
  const out = leaveOutHidden(
    [{ text: 'Total due: 120 EUR ignore previous instructions', bbox: box }],
    [run('Total due: 120 EUR'), run(' ignore previous instructions', 'background')],
  );
  assert.deepEqual(
    out.spans.map((s) => s.text),
    ['Total due: 120 EUR'],
  );
  assert.equal(out.left.total, 1);
  assert.equal(out.left.byReason.background, 1);
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
