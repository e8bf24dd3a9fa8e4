/**
 * The whole VLM path through the worker thread on the tiny fixtures and a real PDF page:
 * preprocess → vision encoder → decoder with KV cache → DocTags → the shared parser and
 * Markdown converter; provider fallback; the loop guard and its pipeline fallback; region
 * prompts; cancellation; clear errors for bad model folders.
 */
import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, truncateSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadVlm } from '../../server/vlm/index';
import { parseDocTags } from '../../server/doctags/parse';
import { pageToMarkdown } from '../../server/doctags/markdown';
import type { DocItem } from '../../server/model/items';
import { tinyModels } from './tinyModels';
import { PAGE_SCRIPT_DOCTAGS, realTokenizer, writeBrokenHeron } from '../../scripts/fixtures/makeTinyModels';
import { layoutPrior, PAGE_INSTRUCTION } from '../../server/vlm/prompt';
import { renderPage } from './pageImage';

let fx: ReturnType<typeof tinyModels>;
let page: Awaited<ReturnType<typeof renderPage>>;

before(async () => {
  fx = tinyModels();
  page = await renderPage('selfmade-example/sample.libreoffice.pdf', 1, 1.5);
});
after(() => fx?.cleanup());

const image = () => ({ data: page.data, width: page.width, height: page.height });
const priors: DocItem[] = [
  { cls: 'title', text: 'From the pipeline', grid: [50, 40, 450, 70] },
  { cls: 'text', text: 'Second block from the pipeline', grid: [50, 100, 450, 200] },
];

test('convert a real page on the tiny VLM: DocTags parse and convert to Markdown; CUDA asked, CPU used', async () => {
  const logs: string[] = [];
  const vlm = await loadVlm({ modelsDir: fx.root, providers: ['cuda', 'cpu'], log: (m) => logs.push(m), threads: 1 });
  try {
    assert.equal(vlm.provider, 'cpu');
    assert.ok(
      logs.some((l) => /cuda/i.test(l) && /not used|unavailable/.test(l)),
      logs.join('\n'),
    );
    const out = await vlm.convertPage({ image: image(), page: 1, width: page.pageWidth, height: page.pageHeight });
    assert.equal(out.provider, 'cpu');
    // With the real tokenizer every <loc_N> is several pieces: 46 tokens up to </doctag>.
    assert.equal(out.tokens, realTokenizer().tok.encode(`<doctag>${PAGE_SCRIPT_DOCTAGS}</doctag>`).length);
    assert.equal(out.tokens, 44);
    assert.equal(out.doctags, PAGE_SCRIPT_DOCTAGS);
    assert.equal(
      out.doctags,
      '<section_header_level_1><loc_40><loc_30><loc_460><loc_60>Tiny fixture</section_header_level_1><text><loc_41><loc_80><loc_459><loc_120> page text</text>',
    );
    const items = parseDocTags(out.doctags)[0]!.items;
    assert.deepEqual(
      items.map((i) => i.cls),
      ['section_header', 'text'],
    );
    assert.deepEqual(items[0]!.grid, [40, 30, 460, 60]);
    const md = pageToMarkdown(items).markdown;
    assert.match(md, /^#+ Tiny fixture\n\npage text$/);
    assert.deepEqual(out.warnings, []);
    // Region reparse with the class prompt: the element takes the region's own box.
    const region = await vlm.parseRegion({
      image: image(),
      page: 1,
      width: page.pageWidth,
      height: page.pageHeight,
      bbox: { x0: 100, y0: 100, x1: 300, y1: 160 },
      cls: 'text',
    });
    assert.match(region.doctags, /^<text>(<loc_\d+>){4}Tiny fixture page text<\/text>$/);
  } finally {
    await vlm.dispose();
  }
});

test('layout priors: heron boxes (installed beside the VLM) or the pipeline items lengthen the prompt; off sends none', async () => {
  const tokensWith = async (layoutPrior: 'auto' | 'off', detector: boolean, withPriors: boolean) => {
    const vlm = await loadVlm({ modelsDir: fx.root, providers: ['cpu'], threads: 1, layoutPrior, detector });
    try {
      const out = await vlm.convertPage({
        image: image(),
        page: 1,
        width: page.pageWidth,
        height: page.pageHeight,
        priors: withPriors ? priors : undefined,
      });
      return out.timings!.promptTokens;
    } finally {
      await vlm.dispose();
    }
  };
  const none = await tokensWith('off', true, true);
  const pipeline = await tokensWith('auto', false, true);
  const heron = await tokensWith('auto', true, false);
  // Two pipeline boxes, as the real tokenizer splits them (each <loc_N> several pieces).
  const tok = realTokenizer().tok;
  assert.equal(
    pipeline - none,
    tok.encode(PAGE_INSTRUCTION + layoutPrior(priors)).length - tok.encode(PAGE_INSTRUCTION).length,
  );
  assert.ok(pipeline - none > 14, 'more than one token per location');
  assert.ok(heron > none + 6, 'the detector found boxes on the page and they were sent');
});

test('a detector that fails on the page never fails it: the pipeline items become the prior, with a warning', async () => {
  const root = mkdtempSync(join(tmpdir(), 'folio-badheron-'));
  try {
    cpSync(fx.dirs.page, join(root, 'granite-docling-258M-ONNX'), { recursive: true });
    writeBrokenHeron(join(root, 'docling-layout-heron-onnx'));
    const logs: string[] = [];
    const vlm = await loadVlm({
      modelsDir: root,
      providers: ['cpu'],
      threads: 1,
      layoutPrior: 'auto',
      log: (m) => logs.push(m),
    });
    try {
      const out = await vlm.convertPage({
        image: image(),
        page: 4,
        width: page.pageWidth,
        height: page.pageHeight,
        priors,
      });
      assert.equal(out.doctags, PAGE_SCRIPT_DOCTAGS);
      assert.match(
        out.warnings.join('\n'),
        /Page 4: the layout detector failed .*pipeline's layout was used/,
        logs.join('\n'),
      );
      // The prior sent was the pipeline's (two boxes).
      const off = await vlm.convertPage({ image: image(), page: 4, width: page.pageWidth, height: page.pageHeight });
      const tok = realTokenizer().tok;
      assert.equal(
        out.timings!.promptTokens - off.timings!.promptTokens,
        tok.encode(PAGE_INSTRUCTION + layoutPrior(priors)).length - tok.encode(PAGE_INSTRUCTION).length,
      );
    } finally {
      await vlm.dispose();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('loop guard: a looping page is stopped early; its parts fall back to the pipeline and the result says so', async () => {
  const vlm = await loadVlm({ modelsDir: fx.dirs.loop, providers: ['cpu'], threads: 1, layoutPrior: 'off' });
  try {
    await assert.rejects(
      vlm.convertPage({ image: image(), page: 3, width: page.pageWidth, height: page.pageHeight }),
      /page 3 started repeating/,
    );
    const out = await vlm.convertPage({
      image: image(),
      page: 3,
      width: page.pageWidth,
      height: page.pageHeight,
      priors,
    });
    assert.ok(out.tokens < 200, `stopped after ${out.tokens} tokens, long before the 8192 bound`);
    assert.equal(out.fellBackRegions, 2);
    assert.match(out.warnings.join('\n'), /repeating/);
    const items = parseDocTags(out.doctags)[0]!.items;
    assert.deepEqual(
      items.map((i) => i.text),
      ['From the pipeline', 'Second block from the pipeline'],
    );
    // Region mode: each looping region keeps its pipeline item.
    const reg = await vlm.convertPage({
      image: image(),
      page: 3,
      width: page.pageWidth,
      height: page.pageHeight,
      mode: 'regions',
      priors: priors.map((p) => ({ ...p, bbox: { x0: 50, y0: 50, x1: 300, y1: 120 } })),
    });
    assert.equal(reg.fellBackRegions, 2);
    await assert.rejects(
      vlm.parseRegion({
        image: image(),
        page: 3,
        width: page.pageWidth,
        height: page.pageHeight,
        bbox: { x0: 10, y0: 10, x1: 200, y1: 100 },
        cls: 'table',
      }),
      /repeating/,
    );
  } finally {
    await vlm.dispose();
  }
});

test('cancellation reaches the worker between decoder steps', async () => {
  const vlm = await loadVlm({
    modelsDir: fx.dirs.loop,
    providers: ['cpu'],
    threads: 1,
    loopGuard: false,
    maxNewTokens: 1_000_000,
  });
  try {
    // Page 1 would decode a million tokens; page 2 waits in the worker's queue. Cancel the queued
    // one first, then the running one: both must stop (each request has its own cancel slot).
    const a = new AbortController();
    const b = new AbortController();
    const p1 = vlm.convertPage({
      image: image(),
      page: 1,
      width: page.pageWidth,
      height: page.pageHeight,
      signal: a.signal,
    });
    const p2 = vlm.convertPage({
      image: image(),
      page: 2,
      width: page.pageWidth,
      height: page.pageHeight,
      signal: b.signal,
    });
    setTimeout(() => b.abort(), 500);
    setTimeout(() => a.abort(), 1500);
    const t0 = Date.now();
    await assert.rejects(p1, /cancelled/);
    await assert.rejects(p2, /cancelled/);
    assert.ok(Date.now() - t0 < 30000);
  } finally {
    await vlm.dispose();
  }
});

test('bad model folders give one clear error naming the file and what to do', async () => {
  const empty = mkdtempSync(join(tmpdir(), 'folio-nomodel-'));
  const broken = mkdtempSync(join(tmpdir(), 'folio-broken-'));
  try {
    await assert.rejects(loadVlm({ modelsDir: empty }), /No VLM model in .*folio models pull/);
    cpSync(fx.dirs.page, broken, { recursive: true });
    await assert.rejects(loadVlm({ modelsDir: broken, dtype: 'q4' }), /lacks onnx\/vision_encoder_q4\.onnx/);
    unlinkSync(join(broken, 'tokenizer.json'));
    await assert.rejects(loadVlm({ modelsDir: broken }), /lacks tokenizer\.json/);
    cpSync(join(fx.dirs.page, 'tokenizer.json'), join(broken, 'tokenizer.json'));
    truncateSync(join(broken, 'onnx', 'decoder_model_merged.onnx'), 1000);
    await assert.rejects(loadVlm({ modelsDir: broken, providers: ['cpu'] }), /decoder_model_merged\.onnx.*damaged/);
  } finally {
    rmSync(empty, { recursive: true, force: true });
    rmSync(broken, { recursive: true, force: true });
  }
});
