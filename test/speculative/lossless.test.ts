/**
 * Greedy decoding with τ = 1: `page` and `hsd` must write exactly what `ar` writes, whatever the
 * drafts, and must need fewer decoder passes when the drafts match the output.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodePage } from '../../server/speculative/hsd';
import { mulberry32 } from '../../server/speculative/random';
import { toyTokenInfo } from './toyTarget';
import type { DecodeOptions } from '../../server/speculative/types';
import { DRAFT_KINDS, makeDrafts, pagePrompt, pages, regionJobs, toyModelFor } from './toyPages';

const info = toyTokenInfo();

test('page and hsd are token-identical to ar for every draft kind, over many random pages', async () => {
  const ps = pages(24, 7);
  const model = toyModelFor(ps, 11);
  const rand = mulberry32(99);
  let cases = 0;
  for (const p of ps) {
    const ar = await decodePage(model, { prompt: pagePrompt(p), drafts: [] }, info, 'ar');
    assert.ok(ar.tokens.length > 10, 'the toy page decodes to a real sequence');
    for (const kind of DRAFT_KINDS) {
      const d = makeDrafts(p, kind, rand);
      const job = { prompt: pagePrompt(p), drafts: d.page, regions: regionJobs(p, d.regions) };
      for (const opts of [
        {},
        { n: 1 },
        { K: 4, maxChains: 2 },
        { verify: 'deepest' },
        { locSpread: 2 },
      ] as DecodeOptions[]) {
        const page = await decodePage(model, job, info, 'page', opts);
        const hsd = await decodePage(model, job, info, 'hsd', opts);
        assert.deepEqual(page.tokens, ar.tokens, `page ≠ ar, page ${p.id}, drafts ${kind}, ${JSON.stringify(opts)}`);
        assert.deepEqual(hsd.tokens, ar.tokens, `hsd ≠ ar, page ${p.id}, drafts ${kind}, ${JSON.stringify(opts)}`);
        cases++;
      }
    }
  }
  assert.equal(cases, 24 * DRAFT_KINDS.length * 5);
});

test('drafts equal to the output need strictly fewer passes; truth drafts still help', async () => {
  const ps = pages(16, 3);
  const model = toyModelFor(ps, 5);
  let arPasses = 0;
  let truthPasses = 0;
  for (const p of ps) {
    const ar = await decodePage(model, { prompt: pagePrompt(p), drafts: [] }, info, 'ar');
    // Exact drafts: the model's own output (what a perfect pipeline would draft).
    const exact = await decodePage(model, { prompt: pagePrompt(p), drafts: [ar.tokens] }, info, 'page');
    assert.deepEqual(exact.tokens, ar.tokens);
    assert.ok(
      exact.stats.passes < ar.stats.passes,
      `page ${p.id}: ${exact.stats.passes} passes with exact drafts vs ${ar.stats.passes}`,
    );
    // Exact drafts accept whole K-blocks: at most ceil(len / (K + 1)) passes.
    assert.ok(
      exact.stats.passes <= Math.ceil(ar.tokens.length / 33),
      `page ${p.id}: ${exact.stats.passes} passes for ${ar.tokens.length} tokens`,
    );
    // hsd with exact region drafts: Stage 1 outputs, then Stage 2; fewer passes than ar in total.
    const regionOut = await Promise.all(
      p.regions.map((_, i) => decodePage(model, { prompt: [0, 1, (p.id % 40) + 8, i + 8], drafts: [] }, info, 'ar')),
    );
    const hsd = await decodePage(
      model,
      {
        prompt: pagePrompt(p),
        drafts: [],
        regions: regionJobs(
          p,
          regionOut.map((r) => r.tokens),
        ),
      },
      info,
      'hsd',
    );
    assert.deepEqual(hsd.tokens, ar.tokens);
    assert.ok(
      hsd.stats.passes < ar.stats.passes,
      `page ${p.id}: hsd ${hsd.stats.passes} passes vs ar ${ar.stats.passes}`,
    );
    arPasses += ar.stats.passes;
    truthPasses += (
      await decodePage(model, { prompt: pagePrompt(p), drafts: makeDrafts(p, 'truth', () => 0.5).page }, info, 'page')
    ).stats.passes;
  }
  // Drafts from the source the model reads (wrong at ~10% of positions) still save passes overall.
  assert.ok(truthPasses * 2 < arPasses, `truth drafts: ${truthPasses} passes vs ar ${arPasses}`);
});

test('ar does one pass per generated token after prefill', async () => {
  const ps = pages(3, 1);
  const model = toyModelFor(ps, 2);
  for (const p of ps) {
    const ar = await decodePage(model, { prompt: pagePrompt(p), drafts: [] }, info, 'ar');
    assert.equal(ar.stats.passes, ar.tokens.length - 1);
    assert.equal(ar.stats.accepted, 0);
  }
});

test('τ < 1 accepts near-argmax drafts: never more passes than τ = 1 on truth drafts', async () => {
  const ps = pages(8, 21);
  const model = toyModelFor(ps, 8, 0, 0.3);
  let exactPasses = 0;
  let relaxedPasses = 0;
  for (const p of ps) {
    const drafts = makeDrafts(p, 'truth', () => 0.5).page;
    exactPasses += (await decodePage(model, { prompt: pagePrompt(p), drafts }, info, 'page')).stats.passes;
    relaxedPasses += (await decodePage(model, { prompt: pagePrompt(p), drafts }, info, 'page', { tau: 0.01 })).stats
      .passes;
  }
  assert.ok(relaxedPasses < exactPasses, `τ=0.01: ${relaxedPasses} passes, τ=1: ${exactPasses}`);
});

test('the page prefill starts before the drafts are ready (drafting overlaps prefill)', async () => {
  const ps = pages(1, 4);
  const model = toyModelFor(ps, 3);
  const events: string[] = [];
  let release!: (d: number[][]) => void;
  const drafts = new Promise<number[][]>((r) => (release = r));
  const realOpen = model.open.bind(model);
  model.open = () => {
    const s = realOpen();
    const prefill = s.prefill.bind(s);
    s.prefill = (prompt) => {
      events.push('prefill');
      return prefill(prompt);
    };
    return s;
  };
  const run = decodePage(model, { prompt: pagePrompt(ps[0]), drafts }, info, 'page');
  await new Promise((r) => setImmediate(r));
  events.push('drafts ready');
  release(makeDrafts(ps[0], 'truth', () => 0.5).page);
  const out = await run;
  assert.deepEqual(events, ['prefill', 'drafts ready']);
  assert.ok(out.stats.accepted > 0, 'the late drafts were still used');
});
