/**
 * `npm run bench:vlm`: where the VLM's time goes, on the tiny fixture model and this CPU.
 *
 *  1. Pages: real PDF pages rendered at scale 2 go through the whole path; per page the time of
 *     preprocessing (resize + tiles), the vision encoder, the prefill (prompt embeddings + one
 *     decoder run over ~1100 prompt tokens) and decoding, with each part's share.
 *  2. Decoding speed: 256 tokens with the KV cache (tokens/s), against the same tokens decoded
 *     without a cache (the whole sequence recomputed each step), measured in the same run.
 *  3. Batching: 4 regions decoded as one left-padded batch against the same regions one by one.
 *  4. Speculation in page conversion: `off` (greedy) against `auto` (the provider's default,
 *     page speculation with the pipeline's drafts) in the same run, pages interleaved: the
 *     scripted fixture's pages with the pipeline's items equal to its output, and 256 tokens of
 *     the random-weight fixture with its own output and with shuffled words as drafts.
 *
 * The tiny model's absolute figures say nothing about granite-docling's speed; the shares and
 * ratios show where the code (not the model) spends time.
 *   usage: node out/scripts/bench/vlm.main.js [--pages N] [--threads N]
 *
 * `--full-size`: the real-size model's pass costs and speculation on it instead (vlmFullSize.ts).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { makeTinyModels } from '../scripts/fixtures/makeTinyModels';
import { pdfjs, pdfjsAssetOptions } from '../server/pdf/pdfjs';
import { noTimings, VlmModel } from '../server/vlm/model';
import { preprocessImage } from '../server/vlm/preprocess';
import { argmax, greedyGenerate } from '../server/vlm/generate';
import { requireMeasured } from '../eval/report/nothingMeasured';
import { convertPageOn } from '../server/vlm/convert';
import { generateSpeculative } from '../server/vlm/specGenerate';
import { specDefaultsFor } from '../server/speculative/defaults';
import { parseDocTags } from '../server/doctags/parse';
import { fullSizeMain } from './vlmFullSize';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

async function renderPages(pdf: string, count: number, scale: number) {
  const lib = await pdfjs();
  const task = lib.getDocument({ data: new Uint8Array(readFileSync(pdf)), ...pdfjsAssetOptions() });
  const doc = await task.promise;
  const pages = [];
  try {
    for (let n = 1; n <= Math.min(count, doc.numPages); n++) {
      const page = await doc.getPage(n);
      const vp = page.getViewport({ scale });
      const w = Math.round(vp.width);
      const h = Math.round(vp.height);
      const factory = doc.canvasFactory as {
        create(w: number, h: number): { canvas: { getContext(k: '2d'): CanvasRenderingContext2D } };
      };
      const { canvas } = factory.create(w, h);
      await page.render({ canvas: canvas as unknown as HTMLCanvasElement, viewport: vp }).promise;
      const img = canvas.getContext('2d').getImageData(0, 0, w, h);
      pages.push({ data: img.data, width: w, height: h });
    }
  } finally {
    await task.destroy();
  }
  return pages;
}

const pct = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)}%`;
const ms = (v: number) => `${v.toFixed(1)} ms`;

async function main(): Promise<void> {
  const pageCount = arg('--pages', 3);
  const threads = arg('--threads', 1);
  const root = mkdtempSync(join(tmpdir(), 'folio-bench-vlm-'));
  try {
    const dirs = makeTinyModels(root);
    const corpus = process.env.FOLIO_CORPUS ?? resolve(__dirname, '..', '..', '..', '..', 'shared', 'corpus');
    const pdf = join(corpus, 'selfmade-example', 'sample.libreoffice.pdf');
    const pages = await renderPages(pdf, pageCount, 2);
    requireMeasured(pages.length, `the page set (--pages ${pageCount} of ${pdf})`, 'Ask for at least one page.');
    const model = await VlmModel.load({ modelsDir: dirs.page, providers: ['cpu'], threads });
    console.log(
      `VLM benchmark: tiny fixture on ${model.provider}, ${threads} thread(s), ${pages.length} page(s) of ${pdf} at scale 2`,
    );

    // 1. Whole path per page.
    const sum = noTimings();
    await model.generate([{ image: pages[0], instruction: 'Convert this page to docling.' }]); // warm-up
    const t0 = performance.now();
    for (const p of pages) {
      const { timings } = await model.generate([{ image: p, instruction: 'Convert this page to docling.' }]);
      for (const k of Object.keys(sum) as (keyof typeof sum)[]) sum[k] += timings[k];
    }
    const wall = performance.now() - t0;
    const parts = sum.preprocessMs + sum.visionMs + sum.prefillMs + sum.decodeMs;
    console.log(
      `\n1. page path (${pages[0].width}×${pages[0].height} px → ${sum.promptTokens / pages.length} prompt tokens, ${sum.newTokens / pages.length} new tokens per page)`,
    );
    console.log(`   time per page   ${ms(wall / pages.length)}`);
    console.log(`   preprocess      ${ms(sum.preprocessMs / pages.length)}  ${pct(sum.preprocessMs, parts)}`);
    console.log(`   vision encoder  ${ms(sum.visionMs / pages.length)}  ${pct(sum.visionMs, parts)}`);
    console.log(`   prefill         ${ms(sum.prefillMs / pages.length)}  ${pct(sum.prefillMs, parts)}`);
    console.log(`   decode          ${ms(sum.decodeMs / pages.length)}  ${pct(sum.decodeMs, parts)}`);

    // 2. Decoding with and without the KV cache, on the looping fixture (never stops by itself).
    const loop = await VlmModel.load({ modelsDir: dirs.loop, providers: ['cpu'], threads });
    const pre = await preprocessImage(pages[0], loop.config.preprocess);
    const feats = await loop.encodeImage(pre);
    const s = loop.newSession();
    const ids = loop.promptIds(pre, 'Convert this page to docling.');
    const row = await loop.promptEmbeds(s, ids, feats);
    const first = await s.prefill([row]);
    const N = 256;
    let t = performance.now();
    const res = await greedyGenerate(s, [first[0][0]], { maxNewTokens: N, stopIds: new Set(), loopGuard: false });
    const cachedMs = performance.now() - t;
    const cachedRate = (res.tokens[0].length / cachedMs) * 1000;
    // Without cache: every step re-runs prompt + tokens so far. Measured on the first 32 steps.
    const M = 32;
    const H = loop.hidden;
    const gen: number[] = [];
    let last = first[0][0];
    t = performance.now();
    for (let i = 0; i < M; i++) {
      gen.push(argmax(last));
      const s2 = loop.newSession();
      const extra = await s2.embed([gen]);
      const full = new Float32Array(row.length + gen.length * H);
      full.set(row);
      full.set(extra, row.length);
      last = (await s2.prefill([full]))[0][0];
    }
    const uncachedRate = (M / (performance.now() - t)) * 1000;
    console.log(`\n2. decoding (prompt ${ids.length} tokens)`);
    console.log(`   with KV cache     ${cachedRate.toFixed(1)} tokens/s (${res.tokens[0].length} tokens)`);
    console.log(`   without KV cache  ${uncachedRate.toFixed(1)} tokens/s (first ${M} tokens)`);
    console.log(`   ratio             ${(cachedRate / uncachedRate).toFixed(1)}×`);

    // 3. Four regions as one batch vs one by one (64 tokens each, loop guard off).
    const crops = [
      { left: 100, top: 100, width: 600, height: 150 },
      { left: 100, top: 300, width: 900, height: 400 },
      { left: 50, top: 800, width: 300, height: 300 },
      { left: 400, top: 1200, width: 700, height: 200 },
    ];
    const reqs = crops.map((crop) => ({ image: pages[0], crop, instruction: 'Convert this page to docling.' }));
    const opts = { maxNewTokens: 64, loopGuard: false as const };
    t = performance.now();
    const batched = await loop.generate(reqs, opts);
    const batchMs = performance.now() - t;
    t = performance.now();
    let singleDecode = 0;
    for (const r of reqs) singleDecode += (await loop.generate([r], opts)).timings.decodeMs;
    const singleMs = performance.now() - t;
    console.log(`\n3. four regions, 64 new tokens each`);
    console.log(`   one batch    ${ms(batchMs)} (decode ${ms(batched.timings.decodeMs)})`);
    console.log(`   one by one   ${ms(singleMs)} (decode ${ms(singleDecode)})`);
    console.log(`   decode speed-up of batching ${(singleDecode / batched.timings.decodeMs).toFixed(2)}×`);

    // 4. Speculation: off vs auto in page conversion, interleaved per page.
    const job = (i: number, priors?: ReturnType<typeof parseDocTags>[0]['items']) => ({
      image: pages[i],
      page: i + 1,
      width: 595,
      height: 842,
      priors,
    });
    const base = await convertPageOn(model, job(0), { layoutPrior: 'off', speculation: 'off' });
    const items = parseDocTags(base.doctags)[0]!.items;
    const acc = {
      off: { ms: 0, decode: 0, other: 0, passes: 0, tokens: 0 },
      auto: { ms: 0, decode: 0, other: 0, passes: 0, tokens: 0 },
    };
    let same = true;
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < pages.length; i++) {
        const outs: Record<string, string> = {};
        for (const mode of ['off', 'auto'] as const) {
          const t1 = performance.now();
          const out = await convertPageOn(model, job(i, items), { layoutPrior: 'off', speculation: mode });
          acc[mode].ms += performance.now() - t1;
          acc[mode].decode += out.timings!.decodeMs;
          acc[mode].other += out.timings!.preprocessMs + out.timings!.visionMs + out.timings!.prefillMs;
          acc[mode].passes += out.speculation!.passes;
          acc[mode].tokens += out.tokens;
          outs[mode] = out.doctags;
        }
        same &&= outs.off === outs.auto;
      }
    }
    requireMeasured(
      acc.off.tokens,
      'the speculation comparison (tokens decoded with off)',
      'The fixture wrote nothing.',
    );
    const n = pages.length * 3;
    const d = specDefaultsFor(model.provider);
    console.log(
      `\n4. speculation in page conversion — fixture copies its drafts (auto = ${d.mode}, K=${d.K}, ${d.maxChains} chain(s) on ${model.provider}; ${n} pages each, interleaved)`,
    );
    console.log(
      "   the tiny fixtures' output is scripted or random and the drafts are that output: the loop's overhead, not the model's speed-up; real: a page run on the real weights (--speculation off vs page)",
    );
    console.log(
      `   off   ${(n / (acc.off.ms / 1000)).toFixed(2)} pages/s, decode ${ms(acc.off.decode / n)}/page (preprocess + vision + prefill ${ms(acc.off.other / n)}), ${(acc.off.passes / n).toFixed(1)} passes for ${(acc.off.tokens / n).toFixed(0)} tokens`,
    );
    console.log(
      `   auto  ${(n / (acc.auto.ms / 1000)).toFixed(2)} pages/s, decode ${ms(acc.auto.decode / n)}/page (preprocess + vision + prefill ${ms(acc.auto.other / n)}), ${(acc.auto.passes / n).toFixed(1)} passes for ${(acc.auto.tokens / n).toFixed(0)} tokens`,
    );
    console.log(
      `   same DocTags ${same ? 'yes' : 'NO'}; pages/s auto/off ${(acc.off.ms / acc.auto.ms).toFixed(2)}×, decode time off/auto ${(acc.off.decode / acc.auto.decode).toFixed(2)}×`,
    );
    const free = await VlmModel.load({ modelsDir: dirs.free, providers: ['cpu'], threads });
    const req = { image: pages[0], instruction: 'Convert this page to docling.' };
    const T = 256;
    const ar = await free.generate([req], { maxNewTokens: T, loopGuard: false });
    const words = ar.outputs[0].text.split(/(?=\s)/);
    const shuffled = words.map((_, i) => words[(i * 7 + 3) % words.length]).join('');
    const dec = { K: d.K, maxChains: d.maxChains, verify: d.verify };
    const r4 = { ar: 0, own: 0, useless: 0, ownPasses: 0, uselessPasses: 0 };
    let exact = true;
    for (let round = 0; round < 3; round++) {
      const a = await free.generate([req], { maxNewTokens: T, loopGuard: false });
      r4.ar += a.timings.decodeMs;
      const own = await generateSpeculative(free, req, {
        mode: 'page',
        decode: dec,
        drafts: [ar.outputs[0].text],
        maxNewTokens: T,
        loopGuard: false,
      });
      r4.own += own.timings.decodeMs;
      r4.ownPasses += own.stats.passes;
      const bad = await generateSpeculative(free, req, {
        mode: 'page',
        decode: dec,
        drafts: [shuffled],
        maxNewTokens: T,
        loopGuard: false,
      });
      r4.useless += bad.timings.decodeMs;
      r4.uselessPasses += bad.stats.passes;
      exact &&=
        own.output.tokens.join() === a.outputs[0].tokens.join() &&
        bad.output.tokens.join() === a.outputs[0].tokens.join();
    }
    console.log(
      `   ${T} tokens, random-weight fixture (3 runs each): off decode ${ms(r4.ar / 3)}; own output as draft ${ms(r4.own / 3)} (${(r4.ownPasses / 3).toFixed(0)} passes, ${(r4.ar / r4.own).toFixed(2)}× faster); shuffled draft ${ms(r4.useless / 3)} (${(r4.uselessPasses / 3).toFixed(0)} passes, ${(r4.ar / r4.useless).toFixed(2)}×); same tokens ${exact ? 'yes' : 'NO'}`,
    );
    if (!same || !exact) throw new Error('speculation changed the output: it must equal greedy decoding');
    await free.release();
    await model.release();
    await loop.release();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

(process.argv.includes('--full-size') ? fullSizeMain() : main()).catch((e) => {
  console.error(e);
  process.exit(1);
});
