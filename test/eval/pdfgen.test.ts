import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makePdf, textPage } from '../../eval/pdf/makePdf';
import { mutate, MUTATIONS, objectSpans } from '../../eval/fuzz/mutate';
import { fuzzCases } from '../../eval/fuzz/runFuzz';
import { pdfjs } from '../../server/pdf/pdfjs';

test('makePdf: xref offsets point at their objects, pdf.js reads every page and its text', async () => {
  const pdf = makePdf([1, 2, 3].map((n) => textPage(n, 5)));
  const s = pdf.toString('latin1');
  const xref = /xref\n0 (\d+)\n([\s\S]*?)trailer/.exec(s);
  assert.ok(xref);
  const offsets = xref[2]
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => Number(l.slice(0, 10)));
  assert.equal(offsets.length, 9);
  offsets.forEach((o, i) => assert.ok(s.startsWith(`${i + 1} 0 obj`, o), `object ${i + 1} not at ${o}`));
  assert.equal(Number(/startxref\n(\d+)/.exec(s)![1]), s.indexOf('xref\n'));

  const lib = await pdfjs();
  const task = lib.getDocument({ data: new Uint8Array(pdf) });
  const doc = await task.promise;
  try {
    assert.equal(doc.numPages, 3);
    const page = await doc.getPage(2);
    const text = (await page.getTextContent()).items.map((i) => ('str' in i ? i.str : '')).join(' ');
    assert.ok(text.includes(textPage(2, 5).heading), text);
    assert.ok(text.includes(textPage(2, 5).lines[4]));
  } finally {
    await task.destroy();
  }
});

test('mutate: every kind changes the bytes, the same seed gives the same bytes', () => {
  const src = makePdf([textPage(1, 3), textPage(2, 3)]);
  assert.deepEqual(
    objectSpans(src).map((o) => o.num),
    [1, 2, 3, 4, 5, 6, 7],
  );
  for (const kind of MUTATIONS) {
    const a = mutate(src, kind, 7);
    assert.ok(!a.bytes.equals(src), `${kind} left the file unchanged`);
    assert.ok(a.bytes.equals(mutate(src, kind, 7).bytes), `${kind} is not reproducible`);
  }
  const del = mutate(src, 'delete-object', 3);
  assert.match(del.note, /^object \d+ deleted/);
  assert.equal(objectSpans(del.bytes).length, 6);
  assert.ok(mutate(src, 'truncate', 5).bytes.length < src.length);
  // Cases cycle through sources, then kinds, with consecutive seeds.
  const cases = fuzzCases(['a', 'b'], 6, 100);
  assert.deepEqual(
    cases.map((c) => [c.source, c.kind, c.seed]),
    [
      ['a', 'flip', 100],
      ['b', 'flip', 101],
      ['a', 'truncate', 102],
      ['b', 'truncate', 103],
      ['a', 'delete-object', 104],
      ['b', 'delete-object', 105],
    ],
  );
});
