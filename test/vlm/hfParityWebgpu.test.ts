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
 *  - speculation on WebGPU from the CPU's prompt cache: `page` with 1 chain (16 tokens) and 8
 *    chains (12 tokens: 8 × 9-row passes are the slowest shape, 48 s at load ~24), `hsd` with 1
 *    and 8 chains (16 tokens), all K = 8 and past token 11: greedy's tokens; and greedy with the
 *    cache kept on the GPU (`deviceCache`): the same tokens.
 * Folio still decodes greedily on WebGPU (docs/vlm.md "WebGPU": the divergence once seen from a
 * WebGPU-prefilled cache does not come back from that saved cache; it was a transient wrong pass
 * of the WebGPU stack on SwiftShader, and speculation there waits for a check on real hardware).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HF_PARITY_PAGES, HF_PARITY_SCALE, hfParityDir, modelFolder } from '../../scripts/fixtures/hfParity';
import { openPdf } from '../../server/pdf/open';
import { renderPage } from '../../server/pdf/render';
import { noTimings, VlmModel } from '../../server/vlm/model';
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

// Speculation on WebGPU from the CPU's prompt cache, the loop's real pass shapes (windows of up to
// K + 1 rows, chains forked and cut): each writes greedy's tokens (= transformers', above).
// `page` with 8 chains is the costliest shape (8 chains × 9 rows against the 1,142-token cache,
// 88 s for 16 tokens at load 15): it decodes 12 tokens, still past token 11.
for (const [mode, chains, tokens] of [
  ['page', 1, TOKENS],
  ['page', 8, 12],
  ['hsd', 1, TOKENS],
  ['hsd', 8, TOKENS],
] as const) {
  test(`page 1 on WebGPU: ${mode} speculation (${chains} chain${chains > 1 ? 's' : ''}, K = 8) writes greedy's first ${tokens} tokens`, async () => {
    gpu.promptOn(cpu);
    const want = expected.slice(0, tokens);
    const r = await generateSpeculative(
      gpu,
      { image, instruction: PAGE_INSTRUCTION },
      {
        mode,
        decode: { K: 8, maxChains: chains, verify: 'deepest' },
        drafts: [gpu.tokenizer.decode(expected)],
        regions: [],
        maxNewTokens: tokens,
      },
    );
    assert.deepEqual(r.output.tokens, want, `${mode}, ${chains} chain(s) on WebGPU = greedy on WebGPU`);
  });
}

test('greedy with the cache kept on the GPU (deviceCache) writes the same tokens, and the cache never leaves it', async () => {
  const dev = await VlmModel.load({
    modelsDir: join(dir, 'model'),
    providers: ['webgpu'],
    threads: 1,
    deviceCache: true,
  });
  try {
    dev.promptOn(cpu);
    const { outputs } = await dev.generate([{ image, instruction: PAGE_INSTRUCTION }], { maxNewTokens: TOKENS });
    assert.deepEqual(outputs[0].tokens, expected, 'device-side cache = copying path = transformers');
    // The session's cache after a step is a GPU tensor, fed back as it is; cache edits refuse.
    const s = dev.newSession();
    const { ids, features } = await cpu.prepare({ image, instruction: PAGE_INSTRUCTION }, noTimings());
    await s.prefill([await dev.promptEmbeds(s, ids, features)]);
    assert.equal(s.cacheOnDevice, false, "the CPU's prompt cache starts in JavaScript memory");
    const [[a]] = await s.step([[expected[0]]]);
    assert.equal(s.cacheOnDevice, true);
    const [[b]] = await s.step([[expected[1]]]);
    assert.equal(s.cacheOnDevice, true);
    assert.equal(s.length, recorded.prompt_tokens + 2);
    assert.ok(a.length > 0 && b.length > 0);
    assert.throws(() => s.truncate(s.length - 1), /cache is on the GPU/);
    s.dispose();
  } finally {
    await dev.release();
  }
});
