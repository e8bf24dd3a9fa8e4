import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzePage, openPdf } from '../../server/pipeline/index';
import { FolioError } from '../../server/errors';
import { FolioErrorCodes } from '../../common/protocol';
import { MAX_PIXELS } from '../../server/pdf/render';
import { corpusPath } from '../helpers/corpus';
import { makePdf } from './makePdf';
import { options } from './analyze';

const dir = mkdtempSync(join(tmpdir(), 'folio-bad-'));

async function rejects(path: string, code: number, name: RegExp, password?: string): Promise<void> {
  await assert.rejects(openPdf(path, { password }), (e: unknown) => {
    assert.ok(e instanceof FolioError, `FolioError expected, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    assert.match(e.message, name, 'the message names the file');
    return true;
  });
}

test('missing file', () => rejects(join(dir, 'nope.pdf'), FolioErrorCodes.FileNotFound, /nope\.pdf was not found/));

test('zero bytes', async () => {
  writeFileSync(join(dir, 'empty.pdf'), '');
  await rejects(
    join(dir, 'empty.pdf'),
    FolioErrorCodes.InvalidPdf,
    /empty\.pdf is not a PDF or is damaged \(zero bytes\)/,
  );
  // The corpus's own empty PDF too.
  await rejects(corpusPath('opendataloader-samples/empty.pdf'), FolioErrorCodes.InvalidPdf, /empty\.pdf/);
});

test('a text file renamed .pdf', async () => {
  writeFileSync(join(dir, 'notes.pdf'), 'These are meeting notes, not a PDF.\n'.repeat(20));
  await rejects(join(dir, 'notes.pdf'), FolioErrorCodes.InvalidPdf, /notes\.pdf is not a PDF or is damaged/);
});

test('a truncated PDF fails cleanly or still opens what it can', async () => {
  const full = readFileSync(corpusPath('docling/pdf/2305.03393v1-pg9.pdf'));
  writeFileSync(join(dir, 'cut.pdf'), full.subarray(0, Math.floor(full.length / 3)));
  try {
    const doc = await openPdf(join(dir, 'cut.pdf'));
    // pdf.js may recover a truncated file; then each page either analyzes or throws (per-page error).
    try {
      await analyzePage(doc, 1, options()).catch((e: Error) => assert.ok(e.message.length > 0));
    } finally {
      await doc.close();
    }
  } catch (e) {
    assert.ok(e instanceof FolioError, String(e));
    assert.equal(e.code, FolioErrorCodes.InvalidPdf);
    assert.match(e.message, /cut\.pdf/);
  }
});

test('password-protected: required, then wrong, then right', async () => {
  const p = corpusPath('docling/pdf/2206.01062_pg3.password.pdf');
  await rejects(
    p,
    FolioErrorCodes.PasswordRequired,
    /2206\.01062_pg3\.password\.pdf is password-protected: pass --password/,
  );
  await rejects(
    p,
    FolioErrorCodes.PasswordIncorrect,
    /2206\.01062_pg3\.password\.pdf: the password is incorrect/,
    'not-the-password',
  );
});

test('a PDF with no pages', async () => {
  writeFileSync(join(dir, 'nopages.pdf'), makePdf({ pages: [] }));
  await assert.rejects(openPdf(join(dir, 'nopages.pdf')), (e: unknown) => {
    assert.ok(e instanceof FolioError);
    assert.ok(e.code === FolioErrorCodes.EmptyDocument || e.code === FolioErrorCodes.InvalidPdf, e.message);
    assert.match(e.message, /nopages\.pdf/);
    return true;
  });
});

test('a 20,000 × 20,000 pt page renders within the pixel cap', async () => {
  writeFileSync(join(dir, 'huge.pdf'), makePdf({ pages: [{ width: 20000, height: 20000, text: 'Huge page' }] }));
  const doc = await openPdf(join(dir, 'huge.pdf'));
  try {
    const a = await analyzePage(doc, 1, options({ renderImages: true }));
    assert.ok(a.image, 'rendered');
    assert.ok(a.image.width * a.image.height <= MAX_PIXELS, `${a.image.width}×${a.image.height}`);
    assert.ok(a.items.some((i) => i.text.includes('Huge page')));
  } finally {
    await doc.close();
  }
});

test('asking for a page that does not exist is an error for that page only', async () => {
  const doc = await openPdf(corpusPath('docling/pdf/2305.03393v1-pg9.pdf'));
  try {
    await assert.rejects(analyzePage(doc, 5, options()), /page 5 does not exist/);
    const ok = await analyzePage(doc, 1, options());
    assert.ok(ok.items.length > 5);
  } finally {
    await doc.close();
  }
});
