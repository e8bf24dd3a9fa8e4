/**
 * Preprocessing ahead (server/vlm/preprocessAhead.ts): the next page's tiles computed on the
 * preprocessing thread (dist/preprocessWorker.js, built by esbuild.mjs) equal the tiles computed
 * where the page decodes; a request matches only the same file, unchanged, with the same
 * settings and no crop; `preprocessImage` takes the look-ahead's result; old results are dropped;
 * without the thread's file the look-ahead is off and pages are preprocessed as before. Also the
 * raw-pixel fast path (no image library) gives what the image library gives. And through the VLM
 * worker: `prefetch` of the next page makes its tiles come from the look-ahead thread, with the
 * same page output, and a page's tile buffer goes back to that thread for a later page.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { findPreprocessWorker, PreprocessAhead } from '../../server/vlm/preprocessAhead';
import {
  preprocessHere,
  preprocessImage,
  setPreprocessSource,
  type PreprocessedImage,
} from '../../server/vlm/preprocess';
import { renderPage } from './pageImage';
import { loadVlm } from '../../server/vlm/index';
import { tinyModels } from './tinyModels';
import { PAGE_SCRIPT_DOCTAGS } from '../../scripts/fixtures/makeTinyModels';
import { GRANITE_PREPROCESS } from '../../scripts/fixtures/realFiles';

const PRE = GRANITE_PREPROCESS;

let dir: string;
let pageA: string;
let pageB: string;
let raw: { data: Uint8ClampedArray; width: number; height: number };

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'folio-ahead-'));
  // Two real pages rendered as the product renders them for the VLM, saved as PNG files.
  raw = await renderPage('selfmade-example/sample.libreoffice.pdf', 1, 1);
  pageA = join(dir, 'a.png');
  await sharp(Buffer.from(raw.data.buffer), { raw: { width: raw.width, height: raw.height, channels: 4 } })
    .png()
    .toFile(pageA);
  const b = await renderPage('selfmade-example/sample.libreoffice.pdf', 2, 1);
  pageB = join(dir, 'b.png');
  await sharp(Buffer.from(b.data.buffer), { raw: { width: b.width, height: b.height, channels: 4 } })
    .png()
    .toFile(pageB);
});
after(() => {
  setPreprocessSource(undefined);
  rmSync(dir, { recursive: true, force: true });
});

function assertSame(a: PreprocessedImage, b: PreprocessedImage, what: string): void {
  assert.deepEqual(a.grid, b.grid, what);
  assert.equal(a.pixelValues.length, b.pixelValues.length, what);
  // Bit for bit (every value is one of 256 table entries per channel).
  assert.ok(
    Buffer.from(a.pixelValues.buffer, a.pixelValues.byteOffset, a.pixelValues.byteLength).equals(
      Buffer.from(b.pixelValues.buffer, b.pixelValues.byteOffset, b.pixelValues.byteLength),
    ),
    `${what}: the tiles differ`,
  );
}

test('the preprocessing thread is built beside the VLM worker', () => {
  assert.ok(findPreprocessWorker(), 'dist/preprocessWorker.js: build with `node esbuild.mjs`');
});

test('a prefetched page equals the page preprocessed here; taken once; other requests do not match', async () => {
  const ahead = new PreprocessAhead();
  try {
    ahead.prefetch({ path: pageA }, PRE);
    ahead.prefetch({ path: pageA }, PRE); // started once
    assert.equal(ahead.take({ path: pageA }, PRE, { left: 0, top: 0, width: 10, height: 10 }), undefined, 'a crop');
    assert.equal(ahead.take({ path: pageA }, { ...PRE, tileSize: 256 }), undefined, 'other settings');
    assert.equal(ahead.take({ path: pageB }, PRE), undefined, 'another file');
    const got = await ahead.take({ path: pageA }, PRE);
    assert.ok(got, 'the prefetched result');
    assert.equal(got.grid.images, 17);
    assertSame(got, await preprocessHere({ path: pageA }, PRE), 'page A');
    assert.equal(ahead.take({ path: pageA }, PRE), undefined, 'taken once');
  } finally {
    await ahead.close();
  }
});

test('a file changed after its prefetch is not matched; results beyond `keep` are dropped', async () => {
  const ahead = new PreprocessAhead(undefined, 1);
  try {
    ahead.prefetch({ path: pageA }, PRE);
    ahead.prefetch({ path: pageB }, PRE); // drops A (keep 1)
    assert.equal(ahead.take({ path: pageA }, PRE), undefined, 'dropped');
    ahead.prefetch({ path: pageA }, PRE); // drops B
    utimesSync(pageA, new Date(), new Date(Date.now() + 5000));
    assert.equal(ahead.take({ path: pageA }, PRE), undefined, 'the file changed since');
    assert.equal(ahead.take({ path: pageB }, PRE), undefined, 'dropped');
  } finally {
    await ahead.close();
  }
});

test('preprocessImage takes the look-ahead result and computes here otherwise', async () => {
  const ahead = new PreprocessAhead();
  setPreprocessSource(ahead);
  try {
    ahead.prefetch({ path: pageB }, PRE);
    const pending = ahead.take({ path: pageB }, PRE);
    assert.ok(pending);
    const expected = await pending;
    ahead.prefetch({ path: pageB }, PRE);
    const viaImage = await preprocessImage({ path: pageB }, PRE);
    assertSame(viaImage, expected!, 'through preprocessImage');
    assert.equal(ahead.take({ path: pageB }, PRE), undefined, 'preprocessImage took it');
    // Nothing started for page A: computed here, same values as always.
    assertSame(await preprocessImage({ path: pageA }, PRE), await preprocessHere({ path: pageA }, PRE), 'page A');
  } finally {
    setPreprocessSource(undefined);
    await ahead.close();
  }
});

test('without the thread file the look-ahead is off, says so once, and takes nothing', async () => {
  const logs: string[] = [];
  const ahead = new PreprocessAhead('', 2, (m) => logs.push(m));
  ahead.prefetch({ path: pageA }, PRE);
  ahead.prefetch({ path: pageB }, PRE);
  assert.equal(ahead.take({ path: pageA }, PRE), undefined);
  assert.equal(logs.length, 1);
  assert.match(logs[0], /preprocessWorker\.js is missing/);
  await ahead.close();
});

test('raw pixels: RGB and opaque RGBA skip the image library and give its values; transparency is flattened on white', async () => {
  const viaFile = await preprocessHere({ path: pageA }, PRE);
  // The PNG of page A holds the same pixels as `raw` (opaque RGBA from pdf.js).
  assertSame(await preprocessHere({ data: raw.data, width: raw.width, height: raw.height }, PRE), viaFile, 'RGBA');
  const rgb = new Uint8Array(raw.width * raw.height * 3);
  for (let i = 0; i < raw.width * raw.height; i++) rgb.set(raw.data.subarray(i * 4, i * 4 + 3), i * 3);
  assertSame(
    await preprocessHere({ data: rgb, width: raw.width, height: raw.height, channels: 3 }, PRE),
    viaFile,
    'RGB',
  );
  // A crop of raw pixels equals the crop of the file.
  const crop = { left: 37, top: 101, width: 300, height: 150 };
  assertSame(
    await preprocessHere({ data: raw.data, width: raw.width, height: raw.height }, PRE, crop),
    await preprocessHere({ path: pageA }, PRE, crop),
    'crop',
  );
  // Half-transparent black over the whole image: flattened on white by the image library (≈ grey).
  const see = new Uint8ClampedArray(raw.data);
  for (let i = 0; i < raw.width * raw.height; i++) see.set([0, 0, 0, 128], i * 4);
  const grey = await preprocessHere({ data: see, width: raw.width, height: raw.height }, PRE);
  const v = grey.pixelValues[1000];
  assert.ok(Math.abs(v - 0) < 0.02, `half-transparent black on white is mid-grey (${v})`);
});

test('through the VLM worker: the next page prefetched while one converts comes from the look-ahead, same output', async () => {
  const fx = tinyModels();
  const logs: string[] = [];
  const vlm = await loadVlm({ modelsDir: fx.root, providers: ['cpu'], threads: 1, log: (m) => logs.push(m) });
  try {
    const job = (path: string) => ({ image: { path }, page: 1, width: 612, height: 792 });
    vlm.prefetch({ path: pageB });
    const a = await vlm.convertPage(job(pageA));
    const b = await vlm.convertPage(job(pageB));
    assert.equal(a.doctags, PAGE_SCRIPT_DOCTAGS);
    assert.equal(b.doctags, PAGE_SCRIPT_DOCTAGS);
    let hits = logs.filter((l) => /tiles computed ahead on the preprocessing thread/.test(l));
    assert.equal(hits.length, 1, logs.join('\n'));
    assert.match(hits[0], /^VLM: b\.png: /);
    assert.doesNotMatch(hits[0], /recycled/, 'the thread had no buffer given back yet');
    // Page B's buffer went back to the thread once its vision encoder ran; the next page is written into it.
    vlm.prefetch({ path: pageA });
    const again = await vlm.convertPage(job(pageA));
    assert.equal(again.doctags, PAGE_SCRIPT_DOCTAGS);
    hits = logs.filter((l) => /tiles computed ahead on the preprocessing thread/.test(l));
    assert.equal(hits.length, 2, logs.join('\n'));
    assert.match(hits[1], /^VLM: a\.png: .*, into a recycled buffer\)$/);
  } finally {
    await vlm.dispose();
    fx.cleanup();
  }
});
