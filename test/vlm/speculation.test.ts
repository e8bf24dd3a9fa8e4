/**
 * Speculative decoding in the VLM's page conversion, on the real ONNX sessions of the tiny
 * fixtures and a real rendered PDF page: the output equals plain greedy decoding with good and
 * with useless drafts, good drafts cut the decoder passes, the streamer sees every committed
 * token in order, cancel stops a page between passes, the loop guard still fires, and the
 * `--speculation` option reaches the worker.
 */
import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { convertPageOn, type ConvertSettings } from '../../server/vlm/convert';
import { VlmModel } from '../../server/vlm/model';
import { loadVlm } from '../../server/vlm/index';
import { CancelledError } from '../../server/errors';
import { generateSpeculative } from '../../server/vlm/specGenerate';
import { PAGE_INSTRUCTION } from '../../server/vlm/prompt';
import { parseDocTags } from '../../server/doctags/parse';
import { pageToMarkdown } from '../../server/doctags/markdown';
import { parseConvertArgs } from '../../server/convertCommand/args';
import { checkOptions } from '../../server/convert/checkParams';
import type { DocItem } from '../../server/model/items';
import type { PageJob } from '../../server/vlm/messages';
import { tinyModels } from './tinyModels';
import { renderPage } from './pageImage';
import { CONVERT_OPTIONS } from '../../common/requestModel';

let fx: ReturnType<typeof tinyModels>;
let page: Awaited<ReturnType<typeof renderPage>>;
const models: VlmModel[] = [];
let scripted: VlmModel;
let looping: VlmModel;
let free: VlmModel;

before(async () => {
  fx = tinyModels();
  page = await renderPage('selfmade-example/sample.libreoffice.pdf', 1, 1.5);
  const load = async (dir: string) => {
    const m = await VlmModel.load({ modelsDir: dir, providers: ['cpu'], threads: 1 });
    models.push(m);
    return m;
  };
  scripted = await load(fx.dirs.page);
  looping = await load(fx.dirs.loop);
  free = await load(fx.dirs.free);
});
after(async () => {
  for (const m of models) await m.release();
  fx?.cleanup();
});

const image = () => ({ data: page.data, width: page.width, height: page.height });
const job = (priors?: DocItem[]): PageJob => ({
  image: image(),
  page: 1,
  width: page.pageWidth,
  height: page.pageHeight,
  priors,
});
const settings = (
  speculation: ConvertSettings['speculation'],
  more: Partial<ConvertSettings> = {},
): ConvertSettings => ({ layoutPrior: 'off', speculation, ...more });
const useless: DocItem[] = [
  { cls: 'title', text: 'Quarterly revenue by region', grid: [50, 40, 450, 70] },
  {
    cls: 'text',
    text: 'Nothing here is what the model writes, apart from chance matches of single words.',
    grid: [50, 100, 450, 200],
  },
];

test('a page decoded speculatively equals greedy decoding (good and useless drafts); good drafts need far fewer passes', async () => {
  const off = await convertPageOn(scripted, job(), settings('off'));
  assert.equal(off.speculation?.mode, 'ar');
  assert.equal(off.tokens, 44, 'real tokenizer: each <loc_N> is several pieces');
  // Good drafts: the pipeline's items are what the model writes.
  const good = parseDocTags(off.doctags)[0]!.items;
  const offGood = await convertPageOn(scripted, job(good), settings('off'));
  const spec = await convertPageOn(scripted, job(good), settings('auto'));
  assert.equal(spec.speculation?.mode, 'page', 'auto on the CPU is page speculation');
  assert.equal(spec.speculation?.K, 8);
  assert.equal(spec.doctags, offGood.doctags);
  assert.equal(spec.doctags, off.doctags);
  assert.equal(pageToMarkdown(parseDocTags(spec.doctags)[0]!.items).markdown, pageToMarkdown(good).markdown);
  assert.equal(spec.tokens, offGood.tokens);
  assert.ok(spec.speculation!.accepted > 0, 'drafted tokens were accepted');
  assert.ok(
    (spec.speculation!.passes + 1) * 3 <= spec.tokens,
    `${spec.tokens} tokens in ${spec.speculation!.passes} passes + prefill`,
  );
  assert.equal(offGood.speculation!.passes, offGood.tokens - 1);
  // Useless drafts: same output, and never more passes than greedy decoding.
  const bad = await convertPageOn(scripted, job(useless), settings('page'));
  assert.equal(bad.speculation?.mode, 'page');
  assert.equal(bad.doctags, off.doctags);
  assert.ok(bad.speculation!.passes <= off.tokens - 1);
  // hsd: the regions' Stage 1 outputs become drafts too; the page stays the same.
  const boxed = good.map((it) => ({
    ...it,
    bbox: { x0: it.grid![0], y0: it.grid![1], x1: it.grid![2], y1: it.grid![3] },
  }));
  const hsd = await convertPageOn(scripted, job(boxed), settings('hsd'));
  assert.equal(hsd.speculation?.mode, 'hsd');
  assert.equal(hsd.doctags, off.doctags);
});

test('long random-weight output: token-for-token equal to greedy; its own output as draft cuts passes by ≥ 4×; the streamer sees every token', async () => {
  const req = { image: image(), instruction: PAGE_INSTRUCTION };
  const maxNewTokens = 160;
  const streamedAr: number[] = [];
  const ar = (await free.generate([req], { maxNewTokens, loopGuard: false, onToken: (_r, id) => streamedAr.push(id) }))
    .outputs[0];
  assert.equal(ar.tokens.length, maxNewTokens);
  assert.deepEqual(streamedAr, ar.tokens);
  const decode = { K: 8, maxChains: 1, verify: 'deepest' as const };
  const streamed: number[] = [];
  const own = await generateSpeculative(free, req, {
    mode: 'page',
    decode,
    drafts: [ar.text],
    maxNewTokens,
    loopGuard: false,
    onToken: (id) => streamed.push(id),
  });
  assert.deepEqual(own.output.tokens, ar.tokens);
  assert.deepEqual(streamed, ar.tokens, 'the streamer got each committed token once, in order');
  assert.ok(own.stats.passes * 4 <= maxNewTokens, `${own.stats.passes} passes for ${maxNewTokens} tokens`);
  // Wide verification (the GPU defaults) on the same decoder: still exact.
  const wide = await generateSpeculative(free, req, {
    mode: 'page',
    decode: { K: 32, maxChains: 8, verify: 'chains' },
    drafts: [ar.text],
    maxNewTokens,
    loopGuard: false,
  });
  assert.deepEqual(wide.output.tokens, ar.tokens);
  // Shuffled words of the output: keys match by chance, proposals fail; still exact.
  const words = ar.text.split(/(?=\s)/);
  const shuffled = words.map((_, i) => words[(i * 7 + 3) % words.length]).join('');
  const bad = await generateSpeculative(free, req, {
    mode: 'page',
    decode,
    drafts: [shuffled],
    maxNewTokens,
    loopGuard: false,
  });
  assert.deepEqual(bad.output.tokens, ar.tokens);
});

const lalala: DocItem[] = [
  {
    cls: 'text',
    text: 'la la la la la la la la la la la la la la la la la la la la la la la la la la la la la la la la',
    grid: [10, 20, 300, 40],
  },
];

test('the loop guard stops a loop under speculation at the same token as greedy decoding', async () => {
  const off = await convertPageOn(looping, job(lalala), settings('off'));
  const spec = await convertPageOn(looping, job(lalala), settings('auto'));
  assert.equal(spec.speculation?.mode, 'page');
  assert.ok(spec.speculation!.accepted > 0, 'the drafts confirmed the loop');
  assert.equal(spec.tokens, off.tokens);
  assert.ok(spec.tokens < 200, `stopped after ${spec.tokens} tokens`);
  assert.match(spec.warnings.join('\n'), /repeating/);
  assert.equal(spec.doctags, off.doctags);
  assert.ok(spec.speculation!.passes < off.speculation!.passes);
});

test('cancel stops a speculative page between decoder passes', async () => {
  let aborted = false;
  let tokens = 0;
  let atCancel = 0;
  const signal = {
    get aborted() {
      return aborted;
    },
  };
  // Cancelled from the token stream itself, once decoding is under way (an event, not a timer).
  const onToken = () => {
    tokens++;
    if (tokens === 60) {
      aborted = true;
      atCancel = tokens;
    }
  };
  const t0 = Date.now();
  await assert.rejects(
    convertPageOn(
      looping,
      job(lalala),
      settings('auto', { signal, loopGuard: false, maxNewTokens: 1_000_000, onToken }),
    ),
    CancelledError,
  );
  assert.ok(Date.now() - t0 < 20_000);
  assert.equal(atCancel, 60, 'it was decoding when cancelled');
  // The pass under way finishes (its accepted drafts and one bonus token: K = 8 on the CPU), no more.
  assert.ok(tokens - atCancel <= 8, `${tokens - atCancel} tokens after the cancel`);
  const atAnswer = tokens;
  await new Promise((r) => setImmediate(r));
  assert.equal(tokens, atAnswer, 'no token after the cancelled page answered');
});

test('--speculation / folio.vlm.speculation reach the worker: off decodes greedily, the default speculates', async () => {
  assert.equal(parseConvertArgs(['a.pdf', '--speculation', 'off']).speculation, 'off');
  // Unset, the flag is the option table's default (common/requestModel.ts), as on every surface.
  assert.equal(parseConvertArgs(['a.pdf']).speculation, CONVERT_OPTIONS.speculation.default);
  assert.throws(
    () => parseConvertArgs(['a.pdf', '--speculation', 'fast']),
    /--speculation must be auto, off, page or hsd/,
  );
  assert.equal(checkOptions({ speculation: 'hsd' }), undefined);
  assert.match(checkOptions({ speculation: 'fast' })!, /speculation/);
  assert.match(checkOptions({ speculation: 1 })!, /speculation/);
  const good = parseDocTags((await convertPageOn(scripted, job(), settings('off'))).doctags)[0]!.items;
  const run = async (speculation?: 'off') => {
    const logs: string[] = [];
    const vlm = await loadVlm({
      modelsDir: fx.root,
      providers: ['cpu'],
      threads: 1,
      layoutPrior: 'off',
      speculation,
      log: (m) => logs.push(m),
    });
    try {
      return { out: await vlm.convertPage({ ...job(good) }), logs };
    } finally {
      await vlm.dispose();
    }
  };
  const off = await run('off');
  const auto = await run();
  assert.equal(off.out.speculation?.setting, 'off');
  assert.equal(off.out.speculation?.mode, 'ar');
  assert.equal(auto.out.speculation?.setting, 'auto');
  assert.equal(auto.out.speculation?.mode, 'page');
  assert.equal(auto.out.doctags, off.out.doctags);
  assert.ok(auto.out.speculation!.passes < off.out.speculation!.passes);
  assert.ok(
    off.logs.some((l) => /page 1: speculation off → greedy: 44 tokens in 43 decoder passes/.test(l)),
    off.logs.join('\n'),
  );
  assert.ok(
    auto.logs.some((l) => /page 1: speculation auto → page, K=8, 1 chain\(s\)/.test(l)),
    auto.logs.join('\n'),
  );
});

test('real interface, real tokenizer: page and hsd, one chain and eight, good / box-shifted / useless drafts all give greedy decoding’s tokens', async () => {
  // A small rendering (one tile: short prompts), so the 24 decodes stay quick on a shared CPU.
  const small = await renderPage('selfmade-example/sample.libreoffice.pdf', 1, 0.5);
  const img = { data: small.data, width: small.width, height: small.height };
  const req = { image: img, instruction: PAGE_INSTRUCTION };
  const crop = (left: number) => ({
    image: img,
    crop: { left, top: 0, width: Math.floor(small.width / 2), height: Math.floor(small.height / 2) },
    instruction: PAGE_INSTRUCTION,
  });
  const configs = [
    { K: 8, maxChains: 1, verify: 'deepest' as const, locSpread: 1, calibrateBoxes: true },
    { K: 32, maxChains: 8, verify: 'chains' as const, locSpread: 1, calibrateBoxes: true },
  ];
  for (const [name, model, maxNewTokens] of [
    ['scripted', scripted, 64],
    ['free', free, 96],
  ] as const) {
    const ar = (await model.generate([req], { maxNewTokens, loopGuard: false })).outputs[0];
    const words = ar.text.split(/(?=\s)/);
    const drafts: Record<string, string> = {
      good: ar.text,
      // Every box value one grid step off: the location pieces still align, the values miss.
      shifted: ar.text.replace(/<loc_(\d+)>/g, (_m, v: string) => `<loc_${Math.min(499, Number(v) + 1)}>`),
      useless: words.map((_, i) => words[(i * 7 + 3) % words.length]).join(''),
    };
    for (const mode of ['page', 'hsd'] as const) {
      for (const decode of configs) {
        for (const [kind, draft] of Object.entries(drafts)) {
          const regions =
            mode === 'hsd'
              ? [0, Math.floor(small.width / 2)].map((left) => ({
                  req: crop(left),
                  drafts: [draft],
                  wrap: (t: string) => t,
                }))
              : undefined;
          const res = await generateSpeculative(model, req, {
            mode,
            decode,
            drafts: [draft],
            regions,
            maxNewTokens,
            loopGuard: false,
          });
          assert.deepEqual(
            res.output.tokens,
            ar.tokens,
            `${name}, ${mode}, K=${decode.K} × ${decode.maxChains}, ${kind} drafts`,
          );
          if (kind === 'good')
            assert.ok(
              res.stats.stage2Passes * 2 < ar.tokens.length,
              `${name} ${mode} ${kind}: ${res.stats.stage2Passes} passes for ${ar.tokens.length} tokens`,
            );
        }
      }
    }
  }
});
