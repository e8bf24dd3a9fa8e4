/**
 * The transformers parity fixture (hfParity.test.ts) on onnxruntime's WebGPU provider, run by
 * Dawn on Chromium's SwiftShader (a software Vulkan device; test/helpers/softwareWebGpu.ts), so
 * CI checks the one GPU path Folio can take without a download.
 *
 * What runs on WebGPU, and what does not (SwiftShader is slow: a page's 17-tile vision run took
 * 200 s and its 1,142-token prefill 610 s on the shared 2-core machine, a decode step ~10 s):
 *  - on WebGPU: every decode pass of page 1 — greedy's one-token steps, `page` and `hsd`
 *    verification passes of up to 9 (one chain, K = 8) and 8 × 33 (eight chains, K = 32) rows,
 *    hsd's Stage 1 batches — for the first TOKENS tokens, which cross the cache length (1,152)
 *    where the WebGPU MatMul once made a verification pass disagree with one-token steps
 *    (docs/vlm.md "WebGPU");
 *  - on WebGPU, checked against the CPU: the vision encoder on one of the page's tiles, and a
 *    prefill pass of the prompt's first 64 tokens from an empty cache;
 *  - on the CPU: the page's (and hsd's region crops') image features and prompt prefill
 *    (`VlmModel.promptOn`), which the CPU tests hold to transformers.
 * Asserted: greedy on WebGPU writes transformers' tokens; `page` and `hsd`, one chain and eight,
 * write exactly greedy-on-WebGPU's tokens.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HF_PARITY_PAGES, HF_PARITY_SCALE, hfParityDir, modelFolder } from '../../scripts/fixtures/hfParity';
import { openPdf } from '../../server/pdf/open';
import { renderPage } from '../../server/pdf/render';
import { VlmModel } from '../../server/vlm/model';
import { preprocessImage } from '../../server/vlm/preprocess';
import { PAGE_INSTRUCTION } from '../../server/vlm/prompt';
import { generateSpeculative, type SpecRegionRequest } from '../../server/vlm/specGenerate';
import { repoRoot } from '../helpers/corpus';
import { useSoftwareWebGpu } from '../helpers/softwareWebGpu';

/** Tokens decoded per mode: past the cache length 1,152 (prompt 1,142 + 10) with margin. */
const TOKENS = 24;

const { icd } = useSoftwareWebGpu();
const page = HF_PARITY_PAGES[0];
const recorded = JSON.parse(readFileSync(join(hfParityDir(), 'tokens.json'), 'utf8')).pages[page.name] as {
  prompt_tokens: number;
  tokens: number[];
};
const expected = recorded.tokens.slice(0, TOKENS);
let dir: string;
let cpu: VlmModel;
let gpu: VlmModel;
let image: { data: Uint8ClampedArray; width: number; height: number };
const logs: string[] = [];

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'folio-hf-parity-webgpu-'));
  modelFolder(join(dir, 'model'));
  cpu = await VlmModel.load({ modelsDir: join(dir, 'model'), providers: ['cpu'], threads: 1 });
  gpu = await VlmModel.load({
    modelsDir: join(dir, 'model'),
    providers: ['webgpu'],
    threads: 1,
    log: (m) => logs.push(m),
  });
  const doc = await openPdf(join(repoRoot(), page.pdf));
  try {
    const img = await renderPage(doc.doc, await doc.doc.getPage(page.page), HF_PARITY_SCALE, false);
    image = { data: img.data, width: img.width, height: img.height };
  } finally {
    await doc.close();
  }
});
after(async () => {
  await gpu?.release();
  await cpu?.release();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  assert.equal(a.length, b.length);
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i] - b[i]));
  return d;
}

test('WebGPU loads on the software Vulkan device and says so', () => {
  assert.equal(gpu.provider, 'webgpu', `the WebGPU provider did not load (ICD ${icd})`);
  assert.equal(gpu.adapter?.name, 'SwiftShader');
  assert.equal(gpu.adapter?.software, true);
  assert.ok(
    logs.some((l) => /WebGPU adapter: Vulkan, SwiftShader \(Google\), a software device/.test(l)),
    logs.join('\n'),
  );
});

test('vision encoder (one tile) and a 64-token prefill on WebGPU agree with the CPU', async () => {
  gpu.promptOn(undefined);
  const pre = await preprocessImage(image, cpu.config.preprocess);
  const one = { ...pre, grid: { ...pre.grid, images: 1 }, pixelValues: pre.pixelValues.subarray(0, 3 * 512 * 512) };
  const [fc, fg] = [await cpu.encodeImage(one), await gpu.encodeImage(one)];
  assert.equal(fg.length, 64 * cpu.hidden);
  assert.ok(maxAbsDiff(fc, fg) < 1e-3, `vision features differ by ${maxAbsDiff(fc, fg)}`);
  const ids = cpu.promptIds(pre, PAGE_INSTRUCTION).slice(0, 64);
  const sc = cpu.newSession();
  const sg = gpu.newSession();
  const [lc, lg] = [
    await sc.prefill([await sc.embed([ids])], { all: true }),
    await sg.prefill([await sg.embed([ids])], { all: true }),
  ];
  assert.equal(lg[0].length, 64);
  const d = Math.max(...lc[0].map((l, i) => maxAbsDiff(l, lg[0][i])));
  assert.ok(d < 1e-3, `prefill logits differ by ${d}`);
  sc.dispose();
  sg.dispose();
});

test(`page 1, decode passes on WebGPU: greedy writes transformers' first ${TOKENS} tokens; page and hsd, one chain and eight, write greedy's`, async () => {
  gpu.promptOn(cpu);
  const req = { image, instruction: PAGE_INSTRUCTION };
  const { outputs } = await gpu.generate([req], { maxNewTokens: TOKENS });
  assert.deepEqual(outputs[0].tokens, expected, "greedy on WebGPU = transformers' tokens");
  const greedy = outputs[0].tokens;
  // The CPU test's drafts: the model's own text (long accepted runs, so verification passes of
  // many rows cross the cache length 1,152), its first half then other text, unrelated text.
  const truth = gpu.tokenizer.decode(greedy);
  const half = gpu.tokenizer.decode(greedy.slice(0, greedy.length >> 1));
  const drafts = [truth, `${half} something the model does not write`, 'Quarterly revenue by region'];
  const regions: SpecRegionRequest[] = [{ left: 0, top: 0, width: 600, height: 400 }].map((crop) => ({
    req: { image, crop, instruction: PAGE_INSTRUCTION },
    drafts: [half],
    wrap: (text: string) => text,
  }));
  const one = { K: 8, maxChains: 1, verify: 'deepest' as const };
  const eight = { K: 32, maxChains: 8, verify: 'chains' as const };
  let accepted = 0;
  for (const [mode, decode] of [
    ['page', one],
    ['page', eight],
    ['hsd', one],
    ['hsd', eight],
  ] as const) {
    const r = await generateSpeculative(gpu, req, {
      mode,
      decode,
      drafts,
      regions: mode === 'hsd' ? regions : [],
      maxNewTokens: TOKENS,
    });
    assert.deepEqual(r.output.tokens, greedy, `${mode}, ${decode.maxChains} chain(s) on WebGPU = greedy on WebGPU`);
    accepted += r.stats.accepted;
  }
  assert.ok(accepted > TOKENS, `drafted tokens were accepted (${accepted}), so passes of many rows ran`);
});
