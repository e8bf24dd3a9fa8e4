/**
 * The full-size generator's shapes load and decode in the unchanged VLM engine: a reduced-depth,
 * full-width model (2 decoder layers, 1 vision layer; real widths, heads, tiles and the real
 * 100,352-token vocabulary; ~550 MB, written to a temp folder and removed) goes through
 * preprocess → SigLIP encoder → embeddings → merged decoder with the KV cache. The 30-layer
 * model itself is only built by `npm run bench:vlm -- --full-size` (1.26 GB, never in CI).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureFullSizeVlm, expectedParams, GRANITE_TEXT } from '../../scripts/fixtures/fullSizeVlm';
import { VlmModel } from '../../server/vlm/model';
import { preprocessImage } from '../../server/vlm/preprocess';

let root: string;
let dir: string;

before(() => {
  root = mkdtempSync(join(tmpdir(), 'folio-fullwidth-'));
  dir = ensureFullSizeVlm(root, { textLayers: 2, visionLayers: 1, seed: 5, longestEdge: 1024 });
});
after(() => rmSync(root, { recursive: true, force: true }));

test('the full-depth parameter count is granite-docling-258M’s (vision + text, tied head counted once)', () => {
  const p = expectedParams();
  const lmHead = GRANITE_TEXT.hidden * GRANITE_TEXT.vocab;
  const total = p.vision + p.embed + p.decoder - lmHead;
  assert.ok(Math.abs(total - 258e6) / 258e6 < 0.03, `${(total / 1e6).toFixed(1)} M parameters`);
  // fp32 vision encoder ≈ 374 MB in the real export (FACTS.md).
  assert.ok(Math.abs(p.vision * 4 - 374e6) / 374e6 < 0.02, `vision ${((p.vision * 4) / 1e6).toFixed(0)} MB`);
});

test('files, external data and the size stamp match the export layout', () => {
  for (const f of ['vision_encoder', 'embed_tokens', 'decoder_model_merged']) {
    const data = statSync(join(dir, 'onnx', `${f}.onnx_data`)).size;
    assert.ok(statSync(join(dir, 'onnx', `${f}.onnx`)).size < 64 * 1024, `${f}.onnx holds the graph only`);
    assert.ok(data > 50e6, `${f}.onnx_data holds the weights (${data} bytes)`);
  }
  assert.equal(
    statSync(join(dir, 'onnx', 'embed_tokens.onnx_data')).size,
    GRANITE_TEXT.vocab * GRANITE_TEXT.hidden * 4,
  );
  const stamp = JSON.parse(readFileSync(join(dir, 'folio-fullsize.json'), 'utf8')) as { files: Record<string, number> };
  assert.equal(Object.keys(stamp.files).length, 6);
  // A second call reuses the folder (stamp and sizes match) instead of rewriting 550 MB.
  const mtime = statSync(join(dir, 'onnx', 'decoder_model_merged.onnx_data')).mtimeMs;
  assert.equal(ensureFullSizeVlm(root, { textLayers: 2, visionLayers: 1, seed: 5, longestEdge: 1024 }), dir);
  assert.equal(statSync(join(dir, 'onnx', 'decoder_model_merged.onnx_data')).mtimeMs, mtime);
});

test('the engine loads it unchanged, encodes tiles to 64 × 576 features and decodes with the KV cache', async () => {
  const model = await VlmModel.load({ modelsDir: dir, providers: ['cpu'], threads: 1 });
  try {
    assert.equal(model.config.text.vocab, 100352);
    assert.equal(model.decoderIo.layers, 2);
    // A 600×500 px image, resized to 1024 × 854 (this model's longest edge): 2 × 2 tiles of 512
    // + the global image = 5 images, encoded one tile per run on the CPU.
    const w = 600;
    const h = 500;
    const px = new Uint8ClampedArray(w * h * 4);
    for (let i = 0; i < px.length; i++) px[i] = (i * 37) % 251;
    const image = { data: px, width: w, height: h };
    const pre = await preprocessImage(image, model.config.preprocess);
    assert.equal(pre.grid.images, 5);
    assert.equal(model.visionBatch, 1);
    const feats = await model.encodeImage(pre);
    assert.equal(feats.length, pre.grid.images * 64 * 576);
    // One run over all five tiles gives the same features as five runs of one tile.
    model.visionBatchOverride = 5;
    const together = await model.encodeImage(pre);
    model.visionBatchOverride = undefined;
    let diff = 0;
    for (let i = 0; i < feats.length; i++) diff = Math.max(diff, Math.abs(feats[i] - together[i]));
    assert.ok(diff < 1e-3, `tile-by-tile vs batched features differ by ${diff}`);
    assert.ok(feats.every(Number.isFinite));

    const s = model.newSession();
    const ids = model.promptIds(pre, 'Convert this page to docling.');
    const row = await model.promptEmbeds(s, ids, feats);
    const [first] = await s.prefill([row]);
    assert.equal(first[0].length, 100352, 'logits over the real vocabulary');
    const step = await s.step([[1, 2, 3]]);
    assert.equal(step[0].length, 3);
    assert.equal(s.length, ids.length + 3);
    s.keepPath(0, 1);
    assert.equal(s.length, ids.length + 1);
    s.dispose();

    const { outputs, timings } = await model.generate([{ image, instruction: 'Convert this page to docling.' }], {
      maxNewTokens: 4,
      loopGuard: false,
    });
    assert.equal(outputs[0].tokens.length, 4);
    assert.equal(outputs[0].reason, 'max');
    assert.equal(timings.promptTokens, ids.length);
  } finally {
    await model.release();
  }
});
