/**
 * The repetition-loop guard inside speculative decoding, on the real ONNX decoder of the tiny
 * `loop` fixture (scripted to write "la la la …" forever): a loop that the drafts confirm is
 * accepted many tokens per pass, and must still stop exactly where plain greedy decoding
 * (server/vlm/generate.ts greedyGenerate, the engine's path) stops it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { VlmModel } from '../../server/vlm/model';
import { greedyGenerate } from '../../server/vlm/generate';
import { DecoderTarget } from '../../server/vlm/decoderTarget';
import { tokenInfoFor } from '../../server/vlm/loadTarget';
import { decodePage } from '../../server/speculative/hsd';
import { tinyModels } from '../vlm/tinyModels';

let fx: ReturnType<typeof tinyModels>;
let model: VlmModel;

before(async () => {
  fx = tinyModels();
  model = await VlmModel.load({ modelsDir: fx.dirs.loop, providers: ['cpu'], threads: 1 });
});
after(async () => {
  await model?.release();
  fx?.cleanup();
});

const MAX = 400;

test('a loop the drafts confirm stops where greedy decoding stops it, in fewer passes', async () => {
  const prompt = model.tokenizer.encode(
    '<|start_of_role|>user<|end_of_role|>Convert this page to docling.<|end_of_text|>\n<|start_of_role|>assistant<|end_of_role|>',
  );
  // The engine's own path: prefill + greedyGenerate with its default loop guard.
  const s = model.newSession();
  const first = await s.prefill([await s.embed([prompt])]);
  const ref = await greedyGenerate(s, [first[0][0]], { maxNewTokens: MAX, stopIds: model.stopIds });
  s.dispose();
  assert.equal(ref.reasons[0], 'loop');
  assert.ok(ref.tokens[0].length < MAX);

  const target = new DecoderTarget({ open: () => model.newSession() });
  const info = tokenInfoFor(model.tokenizer, [...model.stopIds]);
  const ar = await decodePage(target, { prompt, drafts: [] }, info, 'ar', { maxNewTokens: MAX });
  assert.equal(ar.reason, 'loop');
  assert.deepEqual(ar.tokens, ref.tokens[0]);
  assert.equal(ar.loopStart, ref.loopStart[0]);

  // Drafts that repeat the loop far beyond the guard's span: every pass accepts up to K tokens.
  const looped = ref.tokens[0];
  const cycle = looped.slice(looped.length - 2);
  const drafts = [[...looped, ...Array.from({ length: 200 }, (_, i) => cycle[i % 2])]];
  const page = await decodePage(target, { prompt, drafts }, info, 'page', { maxNewTokens: MAX });
  assert.equal(page.reason, 'loop');
  assert.deepEqual(page.tokens, ref.tokens[0], 'same tokens, cut at the same token as greedy decoding');
  assert.equal(page.loopStart, ref.loopStart[0]);
  assert.ok(page.stats.passes * 4 < ar.stats.passes, `page ${page.stats.passes} passes vs ar ${ar.stats.passes}`);

  // Without the guard the accepted loop runs to the token limit: the guard is what stops it.
  const unguarded = await decodePage(target, { prompt, drafts }, info, 'page', { maxNewTokens: MAX, loopGuard: false });
  assert.equal(unguarded.reason, 'max');
  assert.equal(unguarded.tokens.length, MAX);
});
