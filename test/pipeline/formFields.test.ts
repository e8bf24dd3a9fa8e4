/**
 * Filled-in form fields (server/pdf/formFields.ts): their values live in widget annotations, not
 * in the page's text content. Real forms from pdf.js's test suite: an insurance certificate whose
 * whole body is one multi-line text field (Folio wrote an empty page), and OpenOffice's example
 * form with some fields filled ("Man", "150", "Red") and others empty, a password-free form.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeCorpusPdf, bodyText, positions } from './analyze';
import { failingSetTests } from '../layout/setTests';

test('a certificate whose body is one multi-line text field: its lines come out, in order', async () => {
  const text = bodyText(await analyzeCorpusPdf('pdfjs-test-pdfs/issue18036.pdf'));
  positions(text, [
    'This certificate or verification of insurance is not an insurance policy',
    'by the policy listed herein.',
    'herein is subject to all the terms, exclusions, and conditions of the policy.',
    'This Certificate cancels and supersedes any previously issued Certificates.',
  ]);
  // The real-world set's person-written checks of that page.
  const { failed, ran } = await failingSetTests([
    'insurance-cert-p1-02',
    'insurance-cert-p1-03',
    'insurance-cert-p1-04',
  ]);
  assert.equal(ran.length, 3);
  assert.deepEqual(failed, []);
});

test('filled fields of a form show their values (a list box its display value); empty fields add nothing', async () => {
  const pages = await analyzeCorpusPdf('pdfjs-test-pdfs/bug1883609.pdf', {}, [1]);
  const text = bodyText(pages);
  const lines = text.split('\n').map((l) => l.trim());
  for (const v of ['Man', '150', 'Red']) assert.ok(lines.includes(v), `"${v}" is a line of:\n${text}`);
  // Labels stay once each: no value was invented for the empty fields beside them.
  for (const label of ['Given Name:', 'Family Name:', 'Postcode:'])
    assert.equal(text.split(label).length - 1, 1, label);
  positions(text, ['Gender:', 'Man', 'Height (cm):', '150', 'Favourite colour:', 'Red']);
});
