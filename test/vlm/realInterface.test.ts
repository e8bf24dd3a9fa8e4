/**
 * Folio against the real granite-docling export's interface (../shared/models/README.md): the
 * fixture folder holds the real config, tokenizer and preprocessing files byte for byte, and a
 * decoder whose inputs are exactly the real ones (inputs_embeds, attention_mask,
 * past_key_values.*: no position_ids, no num_logits_to_keep, no use_cache_branch; positions
 * derived in the graph from the cache length; logits for every position). A second fixture
 * declares the optional inputs; both must load and write the same page. `folio convert --engine
 * vlm` on the real-interface folder converts a page without falling back.
 */
import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createSession } from '../../server/onnx/runtime';
import { sessionValues } from '../../server/onnx/tensorTypes';
import { VlmModel } from '../../server/vlm/model';
import { PAGE_SCRIPT_DOCTAGS } from '../../scripts/fixtures/makeTinyModels';
import { graniteFilesDir, REAL_FILES } from '../../scripts/fixtures/realFiles';
import { corpusPath, repoRoot } from '../helpers/corpus';
import { tinyModels } from './tinyModels';
import { renderPage } from './pageImage';

const run = promisify(execFile);
let fx: ReturnType<typeof tinyModels>;
before(() => {
  fx = tinyModels();
});
after(() => fx?.cleanup());

test('the fixture decoder has exactly the real export interface, and the configs are the real files', async () => {
  const s = await createSession(join(fx.dirs.page, 'onnx', 'decoder_model_merged.onnx'), {
    providers: ['cpu'],
    threads: 1,
  });
  try {
    const { inputs, outputs } = sessionValues(s.session);
    const names = [...inputs.keys()];
    assert.deepEqual(
      names.filter((n) => !n.startsWith('past_key_values.')),
      ['inputs_embeds', 'attention_mask'],
    );
    for (const n of ['position_ids', 'num_logits_to_keep', 'use_cache_branch'])
      assert.ok(!inputs.has(n), `the real export has no ${n}`);
    assert.equal(inputs.get('attention_mask')!.type, 'int64');
    assert.equal(inputs.get('inputs_embeds')!.type, 'float32');
    assert.ok(outputs.has('logits') && outputs.has('present.0.key'));
  } finally {
    await s.session.release();
  }
  const real = graniteFilesDir();
  for (const f of REAL_FILES)
    assert.ok(
      readFileSync(join(fx.dirs.page, f)).equals(readFileSync(join(real, f))),
      `${f} is the real file, byte for byte`,
    );
  // Nothing else but the assembled tokenizer, the ONNX files and the fixture note.
  const extra = readdirSync(fx.dirs.page).filter((f) => !(REAL_FILES as readonly string[]).includes(f));
  assert.deepEqual(extra.sort(), ['folio-fixture.json', 'onnx', 'tokenizer.json']);
});

test('both kinds of export load and write the same page; the optional inputs are fed only where declared', async () => {
  const page = await renderPage('selfmade-example/sample.libreoffice.pdf', 1, 1);
  const req = {
    image: { data: page.data, width: page.width, height: page.height },
    instruction: 'Convert this page to docling.',
  };
  const texts: string[] = [];
  for (const dir of [fx.dirs.page, fx.dirs.optional]) {
    const m = await VlmModel.load({ modelsDir: dir, providers: ['cpu'], threads: 1 });
    try {
      assert.equal(m.decoderIo.positionIds, dir === fx.dirs.optional);
      assert.equal(m.decoderIo.numLogitsToKeep, dir === fx.dirs.optional);
      assert.equal(m.decoderIo.useCacheBranch, dir === fx.dirs.optional);
      const out = (await m.generate([req])).outputs[0];
      texts.push(out.text);
    } finally {
      await m.release();
    }
  }
  assert.equal(texts[0], `<doctag>${PAGE_SCRIPT_DOCTAGS}</doctag>`);
  assert.equal(texts[1], texts[0]);
});

test('a decoder that lacks a required input is refused with a clear error naming the file', async () => {
  // The embedder is not a decoder: loading it as one must name the missing input (a Folio that
  // required position_ids would fail the same way on the real export: see the first test).
  const { cpSync, mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'folio-notdecoder-'));
  try {
    cpSync(fx.dirs.page, dir, { recursive: true });
    cpSync(join(fx.dirs.page, 'onnx', 'embed_tokens.onnx'), join(dir, 'onnx', 'decoder_model_merged.onnx'));
    cpSync(join(fx.dirs.page, 'onnx', 'embed_tokens.onnx_data'), join(dir, 'onnx', 'embed_tokens.onnx_data'));
    await assert.rejects(
      VlmModel.load({ modelsDir: dir, providers: ['cpu'], threads: 1 }),
      /decoder_model_merged\.onnx has no input "inputs_embeds"; it is not a granite-docling ONNX export/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('folio convert --engine vlm on a folder of the real config/tokenizer files + real-interface ONNX: the VLM converts the page, no fallback', async () => {
  const cli = join(repoRoot(), 'dist', 'cli.js');
  const out = join(fx.root, 'real-interface.json');
  const pdf = corpusPath('selfmade-example/sample.libreoffice.pdf');
  const { stdout, stderr } = await run(
    process.execPath,
    [cli, 'convert', pdf, '--pages', '1', '--engine', 'vlm', '--models', fx.dirs.page, '--format', 'json', '-o', out],
    { timeout: 180_000 },
  );
  const all = stdout + stderr;
  // convertDocument's fallback says "the VLM failed (…); using the pipeline's result for this page".
  assert.doesNotMatch(all, /VLM failed|pipeline's result for this page|comes from the pipeline/i, all);
  assert.doesNotMatch(all, /Couldn't load Vulkan/, 'providers are probed quietly');
  const page = JSON.parse(readFileSync(out, 'utf8')).pages[0];
  assert.equal(page.engine, 'vlm');
  assert.equal(page.doctags, PAGE_SCRIPT_DOCTAGS);
  assert.ok(
    !(page.warnings ?? []).some((w: string) => /VLM failed|pipeline engine/.test(w)),
    JSON.stringify(page.warnings),
  );
});
