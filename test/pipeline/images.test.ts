import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzePage, openPdf, reparseRegion } from '../../server/pipeline/index';
import { corpusPath } from '../helpers/corpus';
import { options } from './analyze';

test('page images are cached by file, page and scale; pictures are saved as assets', async () => {
  const doc = await openPdf(corpusPath('docling/pdf/amt_handbook_sample.pdf'));
  const out = mkdtempSync(join(tmpdir(), 'folio-img-'));
  try {
    const opts = options({
      renderImages: true,
      scale: 1,
      cacheDir: join(out, 'cache'),
      assetsDir: join(out, 'md', 'assets'),
      markdownDir: join(out, 'md'),
    });
    const a = await analyzePage(doc, 1, opts);
    assert.ok(a.image && existsSync(a.image.path), 'page image written');
    assert.equal(a.image.width, Math.ceil(a.width));
    const mtime = statSync(a.image.path).mtimeMs;
    const pics = a.items.filter((i) => i.cls === 'picture');
    assert.ok(pics.length >= 1);
    for (const p of pics) {
      assert.match(p.imagePath ?? '', /^assets\/amt_handbook_sample-p1-\d+\.png$/);
      assert.ok(existsSync(join(out, 'md', p.imagePath!)), p.imagePath);
    }
    // Same file, page and scale: the cached PNG is reused, not rewritten.
    const b = await analyzePage(doc, 1, { ...opts, assetsDir: undefined });
    assert.equal(b.image?.path, a.image.path);
    assert.equal(statSync(a.image.path).mtimeMs, mtime);
  } finally {
    await doc.close();
  }
});

test('reparseRegion shapes the text inside a box by the class asked for', async () => {
  const doc = await openPdf(corpusPath('docling-src-rendered/html/example_03.html.pdf'));
  try {
    const opts = options();
    const page = await analyzePage(doc, 1, opts);
    const item = page.items.find((i) => i.text === 'Nested ordered item 1')!;
    const li = await reparseRegion(doc, 1, { ...item.bbox!, x0: item.bbox!.x0 - 20 }, 'list_item', opts);
    assert.equal(li.cls, 'list_item');
    assert.equal(li.text, 'Nested ordered item 1', 'marker stripped');
    assert.equal(li.ordered, true);
    const intro = page.items.find((i) => i.text === 'Introduction')!;
    const h = await reparseRegion(doc, 1, intro.bbox!, 'section_header', opts);
    assert.deepEqual([h.cls, h.level, h.text], ['section_header', 1, 'Introduction']);
    assert.deepEqual(h.grid, intro.grid);
    const table = page.items.find((i) => i.cls === 'table');
    assert.ok(table?.bbox, 'the page has a table');
    const t = await reparseRegion(doc, 1, table.bbox, 'table', opts);
    assert.ok(t.table && t.table.length >= 3, 'rows');
    assert.ok(t.table.flat().some((c) => c.text.includes('Row 2, Col 3')));
    const asText = await reparseRegion(doc, 1, table.bbox, 'text', opts);
    assert.match(asText.text, /Header 1/);
  } finally {
    await doc.close();
  }
});
