/**
 * Recycled tile buffers (server/vlm/tilePool.ts, issue 38): a buffer is reused only after its
 * holder released it, and releasing detaches the holder's views; a page a caller holds is never
 * overwritten; size classes and the bound on free buffers; a recycled buffer's old values never
 * show through (tiles bit for bit those of a fresh buffer, both kernels); buffers go to the
 * preprocessing thread and back by transfer; the product's consumer (`VlmModel.prepare`) gives the
 * buffer back only after the vision encoder's runs resolved, and onnxruntime-node reads its input
 * when the run executes, which is why it must wait.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { TileBufferPool, threadTilePool } from '../../server/vlm/tilePool';
import { preprocessHere, releaseTiles, type PreprocessedImage } from '../../server/vlm/preprocess';
import { PreprocessAhead } from '../../server/vlm/preprocessAhead';
import { noTimings, VlmModel } from '../../server/vlm/model';
import { tinyModels } from './tinyModels';
import { GRANITE_PREPROCESS } from '../../scripts/fixtures/realFiles';

const PRE = GRANITE_PREPROCESS;
const TILE = 3 * 512 * 512;

/** A synthetic RGB page (gradients and strokes) whose pixels differ with `seed`. */
function page(width: number, height: number, seed: number) {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      const ink = (x + seed * 7) % 97 < 3 || (y + seed) % 61 < 2;
      data[i] = ink ? 0 : (x * seed + y) % 256;
      data[i + 1] = ink ? 0 : (y * 3 + seed * 40) % 256;
      data[i + 2] = ink ? 20 : ((x ^ y) * seed) % 256;
    }
  return { data, width, height, channels: 3 as const };
}

const bytesOf = (p: PreprocessedImage) =>
  Buffer.from(p.pixelValues.buffer, p.pixelValues.byteOffset, p.pixelValues.byteLength);
const copyOf = (p: PreprocessedImage) => Buffer.from(bytesOf(p));

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'folio-tilepool-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('a buffer is reused only after release; release detaches every view the holder kept', () => {
  const pool = new TileBufferPool();
  const a = pool.acquire(2 * TILE);
  const held = a.subarray(TILE);
  a[5] = 42;
  const b = pool.acquire(2 * TILE);
  assert.notEqual(a.buffer, b.buffer, 'nothing was released: a second, fresh buffer');
  b.fill(7);
  assert.equal(a[5], 42, 'a held buffer is never written through another');
  assert.deepEqual(pool.stats(), { fresh: 2, reused: 0, free: 0, freeBytes: 0 });
  pool.release(a.buffer as ArrayBuffer);
  assert.equal(a.length, 0, 'the releaser’s view is detached');
  assert.equal(held.length, 0, 'so is any other view of the buffer');
  pool.release(a.buffer as ArrayBuffer); // released twice: ignored
  assert.equal(pool.stats().free, 1);
  const c = pool.acquire(2 * TILE);
  assert.equal(c[5], 42, 'the released memory came back (old values: the caller writes every value)');
  assert.equal(pool.stats().reused, 1);
  assert.equal(pool.stats().free, 0, 'handed out: no longer free');
  const d = pool.acquire(2 * TILE);
  assert.notEqual(d.buffer, c.buffer);
  assert.equal(pool.stats().fresh, 3);
});

test('size classes: a larger buffer (≤ 1.5×) serves a smaller page as an exact view; bound and idle trim', () => {
  const pool = new TileBufferPool(2, 60 * TILE * 4, 1000);
  const big = pool.acquire(17 * TILE);
  pool.release(big.buffer as ArrayBuffer);
  const small = pool.acquire(13 * TILE);
  assert.equal(small.length, 13 * TILE);
  assert.equal(small.byteOffset, 0);
  assert.equal(small.buffer.byteLength, 17 * TILE * 4, 'the 17-tile buffer serves 13 tiles');
  pool.release(small.buffer as ArrayBuffer);
  assert.equal(pool.acquire(18 * TILE).buffer.byteLength, 18 * TILE * 4, 'too small for 18: a fresh one');
  assert.equal(pool.stats().free, 1, 'the 17-tile buffer is still free');
  assert.equal(pool.acquire(5 * TILE).buffer.byteLength, 5 * TILE * 4, 'over 1.5× too large: a fresh one');
  // At most 2 free buffers and 60 tiles' bytes; the oldest goes first.
  const t0 = performance.now();
  for (const n of [20, 21, 22]) pool.release(new Float32Array(n * TILE).buffer);
  assert.deepEqual(pool.stats().free, 2, `at most maxFree free buffers (${JSON.stringify(pool.stats())})`);
  assert.ok(pool.stats().freeBytes <= 60 * TILE * 4);
  pool.release(new Float32Array(61 * TILE).buffer); // alone over the byte cap: not kept
  assert.ok(pool.stats().freeBytes <= 60 * TILE * 4);
  pool.trim(t0 + 999); // released at t0 or later: less than idleMs ago
  assert.ok(pool.stats().free > 0, 'kept while recently used');
  pool.trim(performance.now() + 1000);
  assert.equal(pool.stats().free, 0, 'dropped after idleMs unused');
  pool.clear();
});

test('a recycled buffer full of stale values gives the fresh buffer’s tiles bit for bit (both kernels, 13 and 17 tiles)', async () => {
  for (const kernel of ['wasm', 'js'] as const)
    for (const [w, h, tiles] of [
      [1000, 1400, 13],
      [1224, 1584, 17],
    ] as const) {
      const image = page(w, h, 3);
      const fresh = await preprocessHere(image, PRE, undefined, kernel, new TileBufferPool());
      assert.equal(fresh.grid.images, tiles);
      const pool = new TileBufferPool();
      const stale = new Float32Array(17 * TILE).fill(NaN);
      pool.release(stale.buffer);
      const recycled = await preprocessHere(image, PRE, undefined, kernel, pool);
      assert.equal(pool.stats().reused, 1, 'written into the released buffer');
      assert.ok(bytesOf(recycled).equals(bytesOf(fresh)), `${kernel}, ${tiles} tiles: the tiles differ`);
    }
});

test('pages in a row through this thread’s pool: the held page is never overwritten, a released one is reused', async () => {
  const a = await preprocessHere(page(1224, 1584, 1), PRE);
  const keepA = copyOf(a);
  const before = threadTilePool.stats();
  // A is held (not released): B must not land in A's buffer.
  const b = await preprocessHere(page(1224, 1584, 2), PRE);
  assert.notEqual(b.pixelValues.buffer, a.pixelValues.buffer);
  assert.ok(bytesOf(a).equals(keepA), 'the held page A is unchanged');
  const keepB = copyOf(b);
  releaseTiles(b);
  assert.equal(b.pixelValues.length, 0, 'released: B reads as empty');
  const c = await preprocessHere(page(1224, 1584, 3), PRE);
  assert.equal(threadTilePool.stats().reused - before.reused, 1, 'C went into B’s buffer');
  assert.ok(bytesOf(a).equals(keepA), 'A still unchanged');
  assert.ok(!bytesOf(c).equals(keepB), 'C holds its own values, not B’s');
  assert.ok(
    bytesOf(c).equals(
      bytesOf(await preprocessHere(page(1224, 1584, 3), PRE, undefined, undefined, new TileBufferPool())),
    ),
  );
  releaseTiles(a);
  releaseTiles(c);
});

test('through the preprocessing thread: tiles transferred here, released back by transfer, reused there; a held page stays', async () => {
  const files: string[] = [];
  for (const seed of [1, 2, 3]) {
    const p = page(1224, 1584, seed);
    const path = join(dir, `p${seed}.png`);
    await sharp(Buffer.from(p.data), { raw: { width: p.width, height: p.height, channels: 3 } })
      .png()
      .toFile(path);
    files.push(path);
  }
  const expected = await Promise.all(
    files.map(async (path) => copyOf(await preprocessHere({ path }, PRE, undefined, undefined, new TileBufferPool()))),
  );
  const ahead = new PreprocessAhead();
  try {
    ahead.prefetch({ path: files[0] }, PRE);
    const first = (await ahead.take({ path: files[0] }, PRE))!;
    assert.ok(bytesOf(first).equals(expected[0]));
    // Held, not released: page 2 gets a fresh buffer on the thread and page 1 stays as it is.
    ahead.prefetch({ path: files[1] }, PRE);
    const second = (await ahead.take({ path: files[1] }, PRE))!;
    assert.equal(ahead.recycled, 0, 'nothing was given back yet');
    assert.ok(bytesOf(first).equals(expected[0]), 'the held page is unchanged');
    assert.ok(bytesOf(second).equals(expected[1]));
    // Released as the vision encoder's consumer does: transferred back (detached here).
    releaseTiles(first);
    assert.equal(first.pixelValues.length, 0, 'sent back: detached on this side');
    ahead.prefetch({ path: files[2] }, PRE);
    const third = (await ahead.take({ path: files[2] }, PRE))!;
    assert.equal(ahead.recycled, 1, 'page 3 was written into page 1’s buffer on the thread');
    assert.ok(bytesOf(third).equals(expected[2]), 'page 3’s own tiles');
    assert.ok(bytesOf(second).equals(expected[1]), 'the held page 2 is unchanged');
    releaseTiles(second);
    releaseTiles(third);
  } finally {
    await ahead.close();
  }
});

test('onnxruntime-node reads an input when the run executes (after `run` was called): release only after it resolved', async () => {
  const fx = tinyModels();
  try {
    const session = await InferenceSession.create(join(fx.dirs.free, 'onnx', 'vision_encoder.onnx'), {
      executionProviders: ['cpu'],
    });
    const px = new Float32Array(TILE).fill(0.25);
    const feeds = () => ({
      pixel_values: new Tensor('float32', px, [1, 1, 3, 512, 512]),
      pixel_attention_mask: new Tensor('bool', new Uint8Array(512 * 512).fill(1), [1, 1, 512, 512]),
    });
    const out = async (p: Promise<InferenceSession.OnnxValueMapType>) =>
      Float32Array.from((await p)[session.outputNames[0]].data as Float32Array);
    const quarter = await out(session.run(feeds()));
    px.fill(0.75);
    const threeQuarters = await out(session.run(feeds()));
    assert.notDeepEqual(quarter, threeQuarters, 'the input matters');
    // Overwritten right after `run` was called, before it resolved: the run saw the new values.
    px.fill(0.25);
    const pending = out(session.run(feeds()));
    px.fill(0.75);
    assert.deepEqual(await pending, threeQuarters, 'the input was read after `run` returned its promise');
    // After it resolved, the outputs are the run's own memory: overwriting the input changes nothing.
    const kept = await out(session.run(feeds()));
    px.fill(0.25);
    assert.deepEqual(kept, threeQuarters);
    await session.release();
  } finally {
    fx.cleanup();
  }
});

test('VlmModel.prepare gives the tiles back after the vision encoder ran; the features stay its own', async () => {
  const fx = tinyModels();
  const model = await VlmModel.load({ modelsDir: fx.dirs.free, providers: ['cpu'], threads: 1 });
  try {
    const image = page(1224, 1584, 5);
    const reference = await model.encodeImage(
      await preprocessHere(image, model.config.preprocess, undefined, undefined, new TileBufferPool()),
    );
    threadTilePool.clear();
    const before = threadTilePool.stats();
    const { features } = await model.prepare({ image, instruction: 'Convert this page to docling.' }, noTimings());
    assert.equal(threadTilePool.stats().free, 1, 'the page’s buffer was given back');
    const kept = Float32Array.from(features);
    // The next page is written into that buffer; the first page's features do not move.
    const next = await preprocessHere(page(1224, 1584, 6), model.config.preprocess);
    assert.equal(threadTilePool.stats().reused - before.reused, 1);
    assert.deepEqual(features, kept);
    assert.deepEqual(features, reference, 'the same features as from a fresh buffer');
    releaseTiles(next);
  } finally {
    await model.release();
    fx.cleanup();
  }
});
