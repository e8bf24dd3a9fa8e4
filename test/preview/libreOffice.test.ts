/**
 * Issue 41, the view: slides as pages go through the real LibreOffice (src/preview/libreOffice.ts):
 * the PPTX is printed to a PDF with one page a slide in a temporary folder that is gone afterwards;
 * a cancel ends the run; a file LibreOffice cannot open is a clear error. LibreOffice is a Debian
 * package scripts/eval-deps.sh installs (npm test runs it); without it these tests fail, not skip.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { findSoffice, LibreOfficeError, withPdfExport } from '../../src/preview/libreOffice';

const FIXTURES = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'office-view');

function folioSlideDirs(): string[] {
  return readdirSync(tmpdir()).filter((f) => f.startsWith('folio-slides-'));
}

test('findSoffice: PATH, FOLIO_SOFFICE, and none', async () => {
  const found = await findSoffice();
  assert.ok(found, 'LibreOffice is installed (scripts/eval-deps.sh installs it)');
  assert.equal(await findSoffice({ PATH: dirname(found) }), found);
  assert.equal(await findSoffice({ PATH: '/nonexistent' }), undefined);
  assert.equal(await findSoffice({ PATH: dirname(found), FOLIO_SOFFICE: 'none' }), undefined);
  assert.equal(await findSoffice({ FOLIO_SOFFICE: '/nonexistent/soffice' }), undefined);
});

test('a PPTX becomes a PDF of one page a slide; the temporary folder is removed', async () => {
  const soffice = (await findSoffice())!;
  const before = new Set(folioSlideDirs());
  let seen = '';
  const pages = await withPdfExport(soffice, join(FIXTURES, 'slides.pptx'), async (pdf) => {
    seen = pdf;
    assert.ok(existsSync(pdf));
    const info = execFileSync('pdfinfo', [pdf], { encoding: 'utf8' });
    const text = execFileSync('pdftotext', [pdf, '-'], { encoding: 'utf8' });
    assert.match(text, /Pond Survey Results/);
    assert.match(text, /Next Steps/);
    return Number(/Pages:\s+(\d+)/.exec(info)?.[1]);
  });
  assert.equal(pages, 2);
  assert.ok(!existsSync(seen), 'the PDF is removed after use');
  assert.deepEqual(
    folioSlideDirs().filter((d) => !before.has(d)),
    [],
  );
});

test('a cancel ends LibreOffice at once and removes its folder', async () => {
  const soffice = (await findSoffice())!;
  const before = new Set(folioSlideDirs());
  const ac = new AbortController();
  const t0 = Date.now();
  const run = withPdfExport(soffice, join(FIXTURES, 'slides.pptx'), () => Promise.resolve('used'), ac.signal);
  setImmediate(() => ac.abort());
  await assert.rejects(run, (e: unknown) => e instanceof LibreOfficeError && /cancelled/.test(e.message));
  const ms = Date.now() - t0;
  assert.ok(ms < 10_000, `ended ${ms} ms after the cancel`);
  assert.deepEqual(
    folioSlideDirs().filter((d) => !before.has(d)),
    [],
  );
});

test('a timeout ends LibreOffice; a file it cannot print is an error naming it', async () => {
  const soffice = (await findSoffice())!;
  await assert.rejects(
    withPdfExport(soffice, join(FIXTURES, 'slides.pptx'), () => Promise.resolve(1), undefined, 1),
    /LibreOffice took more than/,
  );
  const dir = mkdtempSync(join(tmpdir(), 'folio-lo-test-'));
  try {
    // Gone between the check and the run: LibreOffice prints nothing, and the error names the file.
    await assert.rejects(
      withPdfExport(soffice, join(dir, 'gone.pptx'), () => Promise.resolve(1)),
      (e: unknown) => e instanceof LibreOfficeError && /wrote no PDF for gone\.pptx/.test(e.message),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
