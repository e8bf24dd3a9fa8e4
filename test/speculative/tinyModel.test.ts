/**
 * The speculative modes on the real ONNX decoder (the tiny random-weight fixtures from
 * scripts/fixtures, CPU): `page` and `hsd` are token-identical to `ar` with τ = 1, and need fewer
 * decoder runs when the drafts match. This exercises the seam with server/vlm: forking the KV
 * row into chains, ragged batched steps, and keeping only the accepted path.
 */
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTinyModels } from '../../scripts/fixtures/makeTinyModels';
import { loadDecoderTarget, type LoadedTarget } from '../../server/vlm/loadTarget';
import { decodeBatch, decodePage, type RegionJob } from '../../server/speculative/hsd';
import { mulberry32 } from '../../server/speculative/random';

let scripted: LoadedTarget;
let free: LoadedTarget;

before(async () => {
  const root = mkdtempSync(join(tmpdir(), 'folio-spec-'));
  try {
    const dirs = makeTinyModels(root);
    scripted = await loadDecoderTarget(dirs.page);
    free = await loadDecoderTarget(dirs.free);
  } finally {
    // Sessions hold the model in memory; the files can go.
    rmSync(root, { recursive: true, force: true });
  }
});

function prompt(t: LoadedTarget, words: string): number[] {
  return t.tokenizer.encode(
    `<|start_of_role|>user<|end_of_role|>${words}<|end_of_text|>\n<|start_of_role|>assistant<|end_of_role|>`,
  );
}

test('scripted tiny VLM: page and hsd write exactly what ar writes, in fewer decoder runs with matching drafts', async () => {
  const t = scripted;
  const p = prompt(t, 'Convert this page to docling.');
  const ar = await decodePage(t.target, { prompt: p, drafts: [] }, t.info, 'ar', { maxNewTokens: 64 });
  const text = t.tokenizer.decode(ar.tokens);
  assert.match(text, /Tiny fixture/, 'the scripted fixture writes its page');
  // Pipeline-like draft: the same DocTags with every location one grid step off (the wildcard case).
  const draftText = text.replace(/<loc_(\d+)>/g, (_, n) => `<loc_${Number(n) + 1}>`);
  const drafts = [t.tokenizer.encode(draftText)];
  const page = await decodePage(t.target, { prompt: p, drafts }, t.info, 'page', { maxNewTokens: 64 });
  assert.deepEqual(page.tokens, ar.tokens);
  assert.ok(page.stats.passes < ar.stats.passes, `page: ${page.stats.passes} runs vs ar ${ar.stats.passes}`);
  const regions: RegionJob[] = [
    { prompt: prompt(t, 'OCR the text.'), drafts: [t.tokenizer.encode(' page text')], wrap: (o) => [...o] },
  ];
  const hsd = await decodePage(t.target, { prompt: p, drafts, regions }, t.info, 'hsd', { maxNewTokens: 64 });
  assert.deepEqual(hsd.tokens, ar.tokens);
  assert.equal(hsd.regionOutputs?.length, 1);
});

test('random-weight tiny VLM: token-identical to ar for exact, wrong, cut, repeated and empty drafts', async () => {
  const t = free;
  const rand = mulberry32(17);
  const words = ['page', 'text', 'the', 'and', 'fixture', 'Tiny', 'la'];
  let fewer = 0;
  for (let k = 0; k < 6; k++) {
    const ask = Array.from({ length: 3 + k }, () => words[Math.floor(rand() * words.length)]).join(' ');
    const p = prompt(t, ask);
    const opts = { maxNewTokens: 24 };
    const ar = await decodePage(t.target, { prompt: p, drafts: [] }, t.info, 'ar', opts);
    assert.equal(ar.tokens.length, 24);
    const kinds: Record<string, number[][]> = {
      exact: [ar.tokens],
      wrong: [Array.from({ length: 30 }, () => Math.floor(rand() * 200))],
      cut: [ar.tokens.slice(0, 9 + k)],
      repeated: [[...ar.tokens.slice(0, 6), ...ar.tokens.slice(0, 6), ...ar.tokens]],
      empty: [],
    };
    for (const [kind, drafts] of Object.entries(kinds)) {
      const page = await decodePage(t.target, { prompt: p, drafts }, t.info, 'page', opts);
      assert.deepEqual(page.tokens, ar.tokens, `page ≠ ar (${kind}, prompt "${ask}")`);
      const regions: RegionJob[] = [{ prompt: prompt(t, ask.split(' ')[0]), drafts, wrap: (o) => [...o] }];
      const hsd = await decodePage(t.target, { prompt: p, drafts, regions }, t.info, 'hsd', opts);
      assert.deepEqual(hsd.tokens, ar.tokens, `hsd ≠ ar (${kind}, prompt "${ask}")`);
      if (kind === 'exact') {
        assert.ok(
          page.stats.passes < ar.stats.passes,
          `exact drafts: ${page.stats.passes} runs vs ar ${ar.stats.passes}`,
        );
        fewer++;
      }
    }
  }
  assert.equal(fewer, 6);
});

test('Stage 1 as one ONNX batch: every region decodes to its own ar output, with ragged chains kept by keepPaths', async () => {
  const t = free;
  const asks = ['page', 'the and fixture text', 'la la Tiny page text and the'];
  const opts = { maxNewTokens: 20 };
  const solo: number[][] = [];
  for (const a of asks)
    solo.push((await decodePage(t.target, { prompt: prompt(t, a), drafts: [] }, t.info, 'ar', opts)).tokens);
  // Drafts: exact for the first region, cut for the second, useless for the third, so the
  // regions accept different lengths in the same rounds.
  const drafts = [[solo[0]], [solo[1].slice(0, 7)], [[5, 6, 7, 8, 9, 10]]];
  const jobs = asks.map((a, i) => ({ prompt: prompt(t, a), drafts: drafts[i] }));
  const { results, rounds } = await decodeBatch(t.target, jobs, t.info, opts);
  results.forEach((r, i) => assert.deepEqual(r.tokens, solo[i], `region ${i} differs from its own ar decode`));
  const passes = results.map((r) => r.stats.passes);
  assert.equal(rounds, Math.max(...passes), 'one batched run per round, until the longest region is done');
  assert.ok(rounds < passes.reduce((a, b) => a + b, 0));
  assert.ok(results[0].stats.passes < results[2].stats.passes, 'the exactly drafted region finished in fewer passes');
});
