/**
 * Folio against the model's own implementation: a shrunk granite-docling built, run and exported
 * by Hugging Face transformers (scripts/fixtures/hf_parity_model.py; Idefics3ForConditionalGeneration
 * from the real config.json, real vocabulary, tokenizer, processor, image tokens and pixel shuffle;
 * the real export's three ONNX files and tensor names). `tokens.json` holds what
 * `model.generate` (greedy) wrote for two real PDF pages. Folio must write exactly those tokens:
 * plain greedy, `page` and `hsd` speculation, one chain and many, in process and through
 * `folio convert --engine vlm`. Nothing here was produced by Folio's own fixture generator, so a
 * mistake shared by generator and engine (positions, masks, tiles, prompt) cannot hide.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { HF_PARITY_PAGES, HF_PARITY_SCALE, hfParityDir, modelFolder } from '../../scripts/fixtures/hfParity';
import { openPdf } from '../../server/pdf/open';
import { renderPage } from '../../server/pdf/render';
import { noTimings, VlmModel } from '../../server/vlm/model';
import { PAGE_INSTRUCTION, stripWrapper } from '../../server/vlm/prompt';
import { generateSpeculative, type SpecRegionRequest } from '../../server/vlm/specGenerate';
import { repoRoot } from '../helpers/corpus';

const run = promisify(execFile);

interface Recorded {
  versions: Record<string, string>;
  max_new_tokens: number;
  pages: Record<
    string,
    { image_size: [number, number]; image_rgb_sha256: string; tiles: number; prompt_tokens: number; tokens: number[] }
  >;
}

const recorded = JSON.parse(readFileSync(join(hfParityDir(), 'tokens.json'), 'utf8')) as Recorded;
let dir: string;
let model: VlmModel;
const images = new Map<string, { data: Uint8ClampedArray; width: number; height: number }>();

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'folio-hf-parity-'));
  modelFolder(join(dir, 'model'));
  model = await VlmModel.load({ modelsDir: join(dir, 'model'), providers: ['cpu'], threads: 1 });
  for (const p of HF_PARITY_PAGES) {
    const doc = await openPdf(join(repoRoot(), p.pdf));
    try {
      const img = await renderPage(doc.doc, await doc.doc.getPage(p.page), HF_PARITY_SCALE, false);
      images.set(p.name, { data: img.data, width: img.width, height: img.height });
    } finally {
      await doc.close();
    }
  }
});
after(async () => {
  await model?.release();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function rgbSha(img: { data: Uint8ClampedArray; width: number; height: number }): string {
  const rgb = Buffer.alloc(img.width * img.height * 3);
  for (let i = 0, j = 0; i < img.width * img.height; i++) {
    rgb[j++] = img.data[i * 4];
    rgb[j++] = img.data[i * 4 + 1];
    rgb[j++] = img.data[i * 4 + 2];
  }
  return createHash('sha256').update(rgb).digest('hex');
}

test('the fixture is what the export script wrote: real-format files, recorded tokens of sufficient length', () => {
  for (const f of ['vision_encoder.onnx', 'embed_tokens.onnx', 'decoder_model_merged.onnx'])
    assert.ok(existsSync(join(hfParityDir(), 'onnx', f)), f);
  assert.ok(recorded.max_new_tokens >= 48);
  assert.match(recorded.versions.transformers, /^\d+\.\d+/);
  for (const p of HF_PARITY_PAGES) assert.ok(recorded.pages[p.name].tokens.length >= 48, p.name);
});

for (const p of HF_PARITY_PAGES) {
  test(`${p.name}: Folio renders the page transformers was given`, () => {
    const img = images.get(p.name)!;
    const rec = recorded.pages[p.name];
    assert.deepEqual([img.width, img.height], rec.image_size);
    assert.equal(rgbSha(img), rec.image_rgb_sha256, 'the page rendering changed: rerun the fixture scripts');
  });

  test(`${p.name}: greedy decoding writes transformers' tokens`, async () => {
    const rec = recorded.pages[p.name];
    const req = { image: images.get(p.name)!, instruction: PAGE_INSTRUCTION };
    const prepared = await model.prepare(req, noTimings());
    assert.equal(prepared.ids.length, rec.prompt_tokens, 'prompt length');
    const streamed: number[] = [];
    const { outputs } = await model.generate([req], { onToken: (_r, id) => streamed.push(id) });
    assert.deepEqual(outputs[0].tokens, rec.tokens);
    assert.deepEqual(streamed, rec.tokens);
  });

  test(`${p.name}: page and hsd speculation, one chain and eight, write the same tokens`, async () => {
    const rec = recorded.pages[p.name];
    const img = images.get(p.name)!;
    const req = { image: img, instruction: PAGE_INSTRUCTION };
    const truth = model.tokenizer.decode(rec.tokens);
    // Drafts that are partly right: the model's own text (accepted runs), its first half followed
    // by other text (a rejection mid-chain), and unrelated text (nothing accepted).
    const half = model.tokenizer.decode(rec.tokens.slice(0, rec.tokens.length >> 1));
    const drafts = [truth, `${half} something the model does not write`, 'Quarterly revenue by region'];
    const regions: SpecRegionRequest[] = [
      { left: 0, top: 0, width: 600, height: 400 },
      { left: 200, top: 600, width: 800, height: 500 },
    ].map((crop, i) => ({
      req: { image: img, crop, instruction: PAGE_INSTRUCTION },
      drafts: [i === 0 ? half : 'other words'],
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
      const r = await generateSpeculative(model, req, { mode, decode, drafts, regions: mode === 'hsd' ? regions : [] });
      assert.deepEqual(r.output.tokens, rec.tokens, `${mode}, ${decode.maxChains} chain(s)`);
      accepted += r.stats.accepted;
    }
    assert.ok(accepted > 0, 'some drafted tokens were accepted, so verification of many tokens ran');
  });
}

test('folio convert --engine vlm writes the text of those tokens with --speculation off, page and hsd (page 1)', async () => {
  const cli = join(repoRoot(), 'dist', 'cli.js');
  assert.ok(existsSync(cli), 'dist/cli.js is built (npm run build)');
  for (const p of HF_PARITY_PAGES) {
    const rec = recorded.pages[p.name];
    const expected = stripWrapper(model.tokenizer.decode(rec.tokens));
    // Every mode on the first page; the second page greedy only (each run costs a CLI start).
    for (const spec of p === HF_PARITY_PAGES[0] ? ['off', 'page', 'hsd'] : ['off']) {
      const out = join(dir, `${p.name}-${spec}.json`);
      await run(
        process.execPath,
        [
          cli,
          'convert',
          join(repoRoot(), p.pdf),
          '--pages',
          String(p.page),
          '--engine',
          'vlm',
          '--models',
          join(dir, 'model'),
          '--providers',
          'cpu',
          '--layout-prior',
          'off',
          '--speculation',
          spec,
          '--format',
          'json',
          '-o',
          out,
        ],
        { timeout: 300_000 },
      );
      const page = JSON.parse(readFileSync(out, 'utf8')).pages[0];
      assert.equal(page.engine, 'vlm', `${p.name} ${spec}: ${JSON.stringify(page.warnings)}`);
      // The page JSON carries the text, not the ids: the decoded text of transformers' tokens,
      // and the token-bound warning says how many were written (the exact ids and the mode that
      // ran are asserted in process above).
      assert.equal(page.doctags, expected, `${p.name} ${spec}: the text of transformers' tokens`);
      assert.ok(
        (page.warnings as string[]).some((w) => w.includes(`stopped at the ${rec.tokens.length}-token bound`)),
        `${p.name} ${spec}: ${rec.tokens.length} tokens (${JSON.stringify(page.warnings)})`,
      );
    }
  }
});
