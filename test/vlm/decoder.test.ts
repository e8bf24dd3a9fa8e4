import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { VlmModel } from '../../server/vlm/model';
import { preprocessImage } from '../../server/vlm/preprocess';
import { greedyGenerate } from '../../server/vlm/generate';
import { tinyModels } from './tinyModels';

let fx: ReturnType<typeof tinyModels>;
let model: VlmModel;

before(async () => {
  fx = tinyModels();
  model = await VlmModel.load({ modelsDir: fx.dirs.free, providers: ['cpu'], threads: 1 });
});
after(async () => {
  await model?.release();
  fx?.cleanup();
});

/** A synthetic gradient image (w×h RGBA) whose content differs with `seed`. */
function image(w: number, h: number, seed: number) {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 4;
      data[i] = (x * seed) % 256;
      data[i + 1] = (y * 3 + seed * 40) % 256;
      data[i + 2] = ((x + y) * seed) % 256;
      data[i + 3] = 255;
    }
  return { data, width: w, height: h };
}

async function promptRow(seed: number, w: number, h: number, instruction: string) {
  const pre = await preprocessImage(image(w, h, seed), model.config.preprocess);
  const s = model.newSession();
  const ids = model.promptIds(pre, instruction);
  return model.promptEmbeds(s, ids, await model.encodeImage(pre));
}

function maxDiff(a: Float32Array, b: Float32Array): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

test('KV-cached steps give the same logits as recomputing the whole sequence', async () => {
  const row = await promptRow(3, 300, 200, 'Convert table to OTSL.');
  const H = model.hidden;
  const s = model.newSession();
  await s.prefill([row]);
  const steps = [5, 17, 250];
  let cached: Float32Array[] = [];
  for (const t of steps) cached = (await s.step([[t]]))[0];
  // Recompute: prompt + the three tokens as one prefill with no cache.
  const extra = await s.embed([steps]);
  const full = new Float32Array(row.length + steps.length * H);
  full.set(row);
  full.set(extra, row.length);
  const s2 = model.newSession();
  const all = (await s2.prefill([full], { all: true }))[0];
  assert.ok(maxDiff(cached[0], all[all.length - 1]) < 1e-4, 'last logits equal');
  assert.equal(s.length, row.length / H + 3);
});

test('a left-padded batch gives the logits and greedy tokens of each row run alone', async () => {
  const rows = [
    await promptRow(1, 300, 120, 'Convert table to OTSL.'),
    await promptRow(2, 900, 700, 'Convert this page to docling.'),
    await promptRow(5, 80, 200, 'Convert code to text.'),
  ];
  const opts = { maxNewTokens: 12, stopIds: model.stopIds, loopGuard: false as const };
  const batch = model.newSession();
  const firstB = await batch.prefill(rows);
  const outB = await greedyGenerate(
    batch,
    firstB.map((l) => l[0]),
    opts,
  );
  for (let i = 0; i < rows.length; i++) {
    const one = model.newSession();
    const first1 = await one.prefill([rows[i]]);
    assert.ok(maxDiff(first1[0][0], firstB[i][0]) < 1e-4, `row ${i} prefill logits`);
    const out1 = await greedyGenerate(one, [first1[0][0]], opts);
    assert.deepEqual(outB.tokens[i], out1.tokens[0], `row ${i} tokens`);
  }
  // The rows must not all be the same output, or the comparison proves little.
  assert.notDeepEqual(outB.tokens[0], outB.tokens[1]);
});

test('draft chains: forked rows, ragged step, keepPath keeps the accepted KV only', async () => {
  const row = await promptRow(4, 400, 400, 'Convert this page to docling.');
  const s = model.newSession();
  await s.prefill([row]);
  const base = s.length;
  s.selectRows([0, 0]);
  const chains = [
    [7, 8, 9],
    [7, 10],
  ];
  const out = await s.step(chains);
  assert.equal(out[0].length, 3);
  assert.equal(out[1].length, 2);
  s.keepPath(1, 2);
  assert.equal(s.batch, 1);
  assert.equal(s.length, base + 3 - 3 + 2);
  const after = (await s.step([[11]]))[0][0];
  // Same as decoding 7, 10, 11 directly.
  const ref = model.newSession();
  await ref.prefill([row]);
  await ref.step([[7, 10]]);
  const want = (await ref.step([[11]]))[0][0];
  assert.ok(maxDiff(after, want) < 1e-4);
  s.truncate(base);
  assert.equal(s.length, base);
  assert.deepEqual(s.positions(), [base]);
  // Only the fork allocated; keeping the accepted chain and the cut moved data in place.
  assert.deepEqual(s.cacheOps, { copied: 1, inPlace: 2 });
  // The compacted cache decodes exactly like a fresh one.
  const again = (await s.step([[7, 10]]))[0][1];
  const ref2 = model.newSession();
  await ref2.prefill([row]);
  assert.ok(maxDiff(again, (await ref2.step([[7, 10]]))[0][1]) < 1e-4);
});

test('a cache snapshot restored into another session steps to the same logits (the WebGPU replay bench)', async () => {
  const row = await promptRow(5, 300, 200, 'Convert table to OTSL.');
  const s = model.newSession();
  await s.prefill([row]);
  const snap = s.snapshotCache();
  const [[a]] = await s.step([[42]]);
  const r = model.newSession();
  r.restoreCache(snap);
  assert.equal(r.length, snap.mask[0].length);
  const [[b]] = await r.step([[42]]);
  assert.equal(maxDiff(a, b), 0, 'bit-identical from the same cache');
  // The snapshot is a copy: stepping `s` further did not change it.
  const again = model.newSession();
  again.restoreCache(snap);
  const [[c]] = await again.step([[42]]);
  assert.equal(maxDiff(a, c), 0);
  assert.throws(() => again.restoreCache({ mask: snap.mask, kv: snap.kv.slice(1) }), /layers given/);
});
