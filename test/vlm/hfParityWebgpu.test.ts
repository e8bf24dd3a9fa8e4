/**
 * The transformers parity fixture (hfParity.test.ts) on onnxruntime's WebGPU provider, run by
 * Dawn on Chromium's SwiftShader (a software Vulkan device; test/helpers/softwareWebGpu.ts), so
 * CI runs the one GPU path Folio can take without a download.
 *
 * SwiftShader is slow (shared 2-core machine at load ~20: a page's 17-tile vision run 200 s, its
 * 1,142-token prefill 610 s, a decode step ~9 s), so what runs where is split:
 *  - on WebGPU: the adapter report; the vision encoder on one of the page's tiles (checked
 *    against the CPU); greedy's one-token decode steps on page 1 for the first TOKENS tokens,
 *    asserted equal to transformers' tokens;
 *  - on the CPU: the page's image features and prompt prefill (`VlmModel.promptOn`), which the
 *    CPU tests hold to transformers.
 * Open, and reported as a todo (docs/vlm.md "WebGPU"): `page` speculation on WebGPU writes 893
 * where greedy writes 97227 (token 11) — onnxruntime's many-row passes disagree with its
 * one-token steps — so Folio decodes greedily on WebGPU whatever the setting.
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
import { generateSpeculative } from '../../server/vlm/specGenerate';
import { repoRoot } from '../helpers/corpus';
import { useSoftwareWebGpu } from '../helpers/softwareWebGpu';

/** Tokens decoded: past token 11, where `page` on WebGPU first wrote another token. */
const TOKENS = 16;

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

test("vision encoder on WebGPU (one of the page's tiles) agrees with the CPU", async () => {
  gpu.promptOn(undefined);
  const pre = await preprocessImage(image, cpu.config.preprocess);
  const one = { ...pre, grid: { ...pre.grid, images: 1 }, pixelValues: pre.pixelValues.subarray(0, 3 * 512 * 512) };
  const [fc, fg] = [await cpu.encodeImage(one), await gpu.encodeImage(one)];
  assert.equal(fg.length, 64 * cpu.hidden);
  assert.ok(maxAbsDiff(fc, fg) < 1e-3, `vision features differ by ${maxAbsDiff(fc, fg)}`);
});

test(`page 1, decode passes on WebGPU: greedy writes transformers' first ${TOKENS} tokens`, async () => {
  gpu.promptOn(cpu);
  const { outputs } = await gpu.generate([{ image, instruction: PAGE_INSTRUCTION }], { maxNewTokens: TOKENS });
  assert.deepEqual(outputs[0].tokens, expected, "greedy on WebGPU = transformers' tokens");
});

// Open: onnxruntime's WebGPU provider computes many-row verification passes that disagree with
// its one-token steps (measured: `page`, one chain, writes 893 for transformers' 97227 at token 11,
// as the outside report saw), so Folio decodes greedily on WebGPU whatever the setting
// (server/speculative/defaults.ts) and this check is a todo, reported as such, not a pass.
test(
  "page 1 on WebGPU: page speculation (one chain, K = 8) writes greedy's tokens",
  { todo: 'onnxruntime WebGPU many-row passes disagree with one-token steps (docs/vlm.md "WebGPU")' },
  async () => {
    gpu.promptOn(cpu);
    const req = { image, instruction: PAGE_INSTRUCTION };
    const drafts = [gpu.tokenizer.decode(expected)];
    const r = await generateSpeculative(gpu, req, {
      mode: 'page',
      decode: { K: 8, maxChains: 1, verify: 'deepest' },
      drafts,
      regions: [],
      maxNewTokens: TOKENS,
    });
    assert.deepEqual(r.output.tokens, expected, 'page, one chain on WebGPU = greedy on WebGPU');
  },
);
