/**
 * The WebGPU-prefilled case of issue 38's divergence (docs/vlm.md "WebGPU"): `page` speculation
 * wrote 893 at token 11 of page 1 only when the page's prompt was encoded and prefilled on WebGPU.
 * A page prompt on SwiftShader takes ~15 min, so this builds the caches once and saves them:
 *
 *   node out/scripts/bench/webgpuPrefill.main.js prefill --dir /tmp/x [--gpu-vision]
 *     page 1's prompt (1,142 tokens) prefilled three ways, each cache saved to DIR/NAME.{json,bin}:
 *       cc: vision on the CPU,  prefill on the CPU;
 *       cg: vision on WebGPU,   prefill on the CPU   (only with --gpu-vision);
 *       gg: vision on WebGPU,   prefill on WebGPU    (the failing run's cache; with --gpu-vision,
 *           else gc: vision on the CPU, prefill on WebGPU);
 *     and prints, position by position along the prompt, how far the prompt logits (every
 *     position's) and the caches are apart: where the gap starts and how it grows.
 *
 *   node out/scripts/bench/webgpuPrefill.main.js verify --dir /tmp/x --cache gg --provider webgpu
 *     from one saved cache, on one provider, the failing run's passes (verifyDivergence's):
 *     18 one-token steps of transformers' tokens; then a 9-row pass at cache prompt + 9 on the
 *     cache those steps made ("steps"), and, as the failing run did, a 9-row pass at the prompt
 *     and a 9-row pass after it ("windows"). Per row: argmax of both, max |Δlogit|, top-2 margin.
 *     Saves the one-token logits to DIR/NAME-PROVIDER.steps.bin; when the other provider's file
 *     is there, also prints CPU vs WebGPU per step from the same cache.
 *
 * WebGPU on a machine without a GPU: `VK_ICD_FILENAMES` = Chromium's vk_swiftshader_icd.json and
 * `XDG_RUNTIME_DIR` set (docs/vlm.md "WebGPU").
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { HF_PARITY_PAGES, HF_PARITY_SCALE, hfParityDir, modelFolder } from '../scripts/fixtures/hfParity';
import { repoRootFrom } from '../scripts/fixtures/realFiles';
import { openPdf } from '../server/pdf/open';
import { renderPage } from '../server/pdf/render';
import { DecoderSession, type DecoderModel } from '../server/vlm/decoder';
import { VlmModel } from '../server/vlm/model';
import { preprocessImage } from '../server/vlm/preprocess';
import { PAGE_INSTRUCTION } from '../server/vlm/prompt';
import { maxAbs, top2 } from './logitStats';

type Snapshot = ReturnType<DecoderSession['snapshotCache']>;

function arg(name: string, dflt: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : dflt;
}

function saveFloats(path: string, arrays: Float32Array[]): void {
  const n = arrays.reduce((a, x) => a + x.length, 0);
  const all = new Float32Array(n);
  let o = 0;
  for (const x of arrays) {
    all.set(x, o);
    o += x.length;
  }
  writeFileSync(path, Buffer.from(all.buffer, all.byteOffset, all.byteLength));
}

function loadFloats(path: string): Float32Array {
  const b = readFileSync(path);
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}

function saveCache(dir: string, name: string, snap: Snapshot, last: Float32Array): void {
  const dims = snap.kv.map((pair) => pair.map((p) => p.dims));
  writeFileSync(join(dir, `${name}.json`), JSON.stringify({ mask: snap.mask, dims }));
  saveFloats(join(dir, `${name}.bin`), [...snap.kv.flat().map((p) => p.data), last]);
}

function loadCache(dir: string, name: string): { snap: Snapshot; last: Float32Array } {
  const meta = JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')) as { mask: number[][]; dims: number[][][] };
  const all = loadFloats(join(dir, `${name}.bin`));
  let o = 0;
  const kv = meta.dims.map((pair) =>
    pair.map((dims) => {
      const n = dims.reduce((a, b) => a * b, 1);
      const data = all.slice(o, o + n);
      o += n;
      return { dims, data };
    }),
  );
  return { snap: { mask: meta.mask, kv }, last: all.slice(o) };
}

async function pageImage() {
  const page = HF_PARITY_PAGES[0];
  const doc = await openPdf(join(repoRootFrom(__dirname), page.pdf));
  try {
    const img = await renderPage(doc.doc, await doc.doc.getPage(page.page), HF_PARITY_SCALE, false);
    return { data: img.data, width: img.width, height: img.height };
  } finally {
    await doc.close();
  }
}

const recorded = () =>
  JSON.parse(readFileSync(join(hfParityDir(), 'tokens.json'), 'utf8')).pages.page1.tokens as number[];

/** Per prompt position: max |Δ| of the logits rows and of the caches (all layers, keys and values). */
function comparePrompts(
  label: string,
  a: { logits: Float32Array[]; snap: Snapshot },
  b: { logits: Float32Array[]; snap: Snapshot },
  P: number,
): void {
  const D = a.snap.kv[0][0].dims[3];
  const heads = a.snap.kv[0][0].dims[1];
  const logit: number[] = [];
  const cache: number[] = [];
  const argmaxOff: number[] = [];
  for (let p = 0; p < P; p++) {
    logit.push(maxAbs(a.logits[p], b.logits[p]));
    if (top2(a.logits[p]).id !== top2(b.logits[p]).id) argmaxOff.push(p);
    let c = 0;
    a.snap.kv.forEach((pair, l) =>
      pair.forEach((t, kv) => {
        const u = b.snap.kv[l][kv].data;
        for (let h = 0; h < heads; h++)
          for (let d = 0; d < D; d++) {
            const i = (h * P + p) * D + d;
            c = Math.max(c, Math.abs(t.data[i] - u[i]));
          }
      }),
    );
    cache.push(c);
  }
  console.log(`\n${label}: prompt ${P} positions`);
  for (const th of [1e-5, 1e-4, 1e-3, 1e-2, 0.1, 1]) {
    const fl = logit.findIndex((x) => x > th);
    const fc = cache.findIndex((x) => x > th);
    console.log(`  first position with |Δ| > ${th}: logits ${fl}, cache ${fc}`);
  }
  console.log('  positions      max|Δlogit|  max|Δcache|');
  for (let p0 = 0; p0 < P; p0 += 64) {
    const p1 = Math.min(P, p0 + 64);
    console.log(
      `  ${String(p0).padStart(4)}–${String(p1 - 1).padEnd(4)}  ${Math.max(...logit.slice(p0, p1))
        .toExponential(3)
        .padStart(11)}  ${Math.max(...cache.slice(p0, p1))
        .toExponential(3)
        .padStart(11)}`,
    );
  }
  console.log(
    `  overall: logits ≤ ${Math.max(...logit).toExponential(3)}, cache ≤ ${Math.max(...cache).toExponential(3)}; argmax differs at ${argmaxOff.length} of ${P} positions${argmaxOff.length ? ` (first ${argmaxOff.slice(0, 8).join(', ')})` : ''}; last row |Δ| ${logit[P - 1].toExponential(3)}`,
  );
}

async function prefillPhase(dir: string, model: string): Promise<void> {
  const gpuVision = process.argv.includes('--gpu-vision');
  const cpu = await VlmModel.load({ modelsDir: model, providers: ['cpu'], threads: 1 });
  const gpu = await VlmModel.load({ modelsDir: model, providers: ['webgpu'], threads: 1 });
  if (gpu.provider !== 'webgpu') throw new Error(`webgpu did not load (got ${gpu.provider})`);
  console.log(`decoder io: ${JSON.stringify(cpu.newSession()['io'])}`);
  const image = await pageImage();
  const pre = await preprocessImage(image, cpu.config.preprocess);
  const ids = cpu.promptIds(pre, PAGE_INSTRUCTION);
  let t = performance.now();
  const featC = await cpu.encodeImage(pre);
  console.log(`vision on cpu ${(performance.now() - t).toFixed(0)} ms (${pre.grid.images} tiles)`);
  saveFloats(join(dir, 'features-cpu.bin'), [featC]);
  let featG = featC;
  if (gpuVision) {
    t = performance.now();
    featG = await gpu.encodeImage(pre);
    console.log(`vision on webgpu ${(performance.now() - t).toFixed(0)} ms; max |Δ| vs cpu ${maxAbs(featC, featG)}`);
    saveFloats(join(dir, 'features-webgpu.bin'), [featG]);
  }
  const run = async (m: VlmModel, feats: Float32Array, name: string) => {
    const s = m.newSession();
    const t0 = performance.now();
    const logits = (await s.prefill([await m.promptEmbeds(s, ids, feats)], { all: true }))[0];
    const snap = s.snapshotCache();
    s.dispose();
    console.log(`prefill ${name} on ${m.provider}: ${(performance.now() - t0).toFixed(0)} ms, ${logits.length} rows`);
    saveCache(dir, name, snap, logits[logits.length - 1]);
    return { logits, snap };
  };
  const cc = await run(cpu, featC, 'cc');
  const cg = gpuVision ? await run(cpu, featG, 'cg') : undefined;
  if (cg) comparePrompts('vision on WebGPU vs on the CPU, both prefilled on the CPU (cg vs cc)', cg, cc, ids.length);
  const gName = gpuVision ? 'gg' : 'gc';
  const g = await run(gpu, featG, gName);
  comparePrompts(
    `prefill on WebGPU vs on the CPU, same image features (${gName} vs ${gpuVision ? 'cg' : 'cc'})`,
    g,
    cg ?? cc,
    ids.length,
  );
  if (cg) comparePrompts('the failing run vs the CPU run (gg vs cc)', g, cc, ids.length);
  await gpu.release();
  await cpu.release();
}

interface Row {
  pos: number;
  one: number;
  k: number;
  d: number;
  m1: number;
}

async function verifyPhase(dir: string, model: string): Promise<void> {
  const name = arg('cache', 'gg');
  const provider = arg('provider', 'webgpu');
  const tokens = recorded();
  const m = await VlmModel.load({ modelsDir: model, providers: [provider], threads: 1 });
  if (m.provider !== provider) throw new Error(`${provider} did not load (got ${m.provider})`);
  const { snap, last } = loadCache(dir, name);
  const P = snap.mask[0].length;
  const s = m.newSession();
  s.restoreCache(snap);
  const N = 18;
  const one: Float32Array[] = [last];
  let t = performance.now();
  for (let i = 0; i < N; i++) {
    const [[l]] = await s.step([[tokens[i]]]);
    one.push(l.slice());
  }
  console.log(
    `cache ${name} (${P} positions) on ${provider}: ${N} one-token steps ${(performance.now() - t).toFixed(0)} ms`,
  );
  saveFloats(join(dir, `${name}-${provider}.steps.bin`), one);
  const rows: (Row & { w: string })[] = [];
  const window = async (start: number, k: number, w: string) => {
    t = performance.now();
    const [out] = await s.step([tokens.slice(start, start + k)]);
    out.forEach((lk, j) => {
      const p = start + j + 1;
      const a = top2(one[p]);
      rows.push({ pos: p, one: a.id, k: top2(lk).id, d: maxAbs(one[p], lk), m1: a.margin, w });
    });
    console.log(`window ${start}:${k} (${w}) ${(performance.now() - t).toFixed(0)} ms`);
  };
  // The 9-row pass at prompt + 9 on the cache the one-token steps made.
  s.truncate(P + 9);
  await window(9, 9, 'steps');
  // The failing run's order: a 9-row pass at the prompt, then one at prompt + 9 on its cache.
  s.truncate(P);
  await window(0, 9, 'windows');
  await window(9, 9, 'windows');
  s.dispose();
  console.log('pos  recorded  1-row   9-row  cache    max|Δlogit|  top-2 margin (1-row)');
  for (const r of rows)
    console.log(
      `${String(r.pos).padStart(3)}  ${String(tokens[r.pos]).padStart(8)}  ${String(r.one).padStart(6)}  ${String(r.k).padStart(6)}  ${r.w.padEnd(7)}  ${r.d.toExponential(3).padStart(11)}  ${r.m1.toExponential(3)}${r.one !== r.k ? '  FLIP' : ''}${r.one !== tokens[r.pos] ? '  (1-row ≠ transformers)' : ''}`,
    );
  console.log(
    `${name} on ${provider}: max |9-row − 1-row| ${Math.max(...rows.map((r) => r.d)).toExponential(3)}; flips ${rows.filter((r) => r.one !== r.k).length}; 1-row ≠ transformers at ${
      one
        .map((l, i) => (i < N && top2(l).id !== tokens[i] ? i : -1))
        .filter((i) => i >= 0)
        .join(', ') || 'none'
    }`,
  );
  const other = join(dir, `${name}-${provider === 'cpu' ? 'webgpu' : 'cpu'}.steps.bin`);
  if (existsSync(other)) {
    const o = loadFloats(other);
    const V = last.length;
    const per = one.map((l, i) => maxAbs(l, o.subarray(i * V, (i + 1) * V)));
    console.log(
      `cpu vs webgpu one-token logits from cache ${name}: ${per.map((d) => d.toExponential(2)).join(' ')} (rows 0–${N})`,
    );
  }
  await m.release();
}

/**
 * The model on the CPU and on WebGPU (refused if WebGPU did not load), page 1's prompt ids and the
 * CPU image features the prefill phase saved: what the repeat and chunks phases start from.
 */
async function cpuAndGpu(
  dir: string,
  model: string,
): Promise<{ cpu: VlmModel; gpu: VlmModel; ids: number[]; feats: Float32Array }> {
  const cpu = await VlmModel.load({ modelsDir: model, providers: ['cpu'], threads: 1 });
  const gpu = await VlmModel.load({ modelsDir: model, providers: ['webgpu'], threads: 1 });
  if (gpu.provider !== 'webgpu') throw new Error(`webgpu did not load (got ${gpu.provider})`);
  const pre = await preprocessImage(await pageImage(), cpu.config.preprocess);
  const ids = cpu.promptIds(pre, PAGE_INSTRUCTION);
  const feats = loadFloats(join(dir, 'features-cpu.bin'));
  return { cpu, gpu, ids, feats };
}

/**
 * Is a WebGPU prefill the same every time? The first `--len` positions of page 1's prompt (CPU
 * image features from the prefill phase) prefilled `--repeat` times on WebGPU and once on the
 * CPU; per run: max |Δlogit| against the CPU and against the first WebGPU run, and the positions
 * that differ from the first run by more than 1e-4.
 */
async function repeatPhase(dir: string, model: string): Promise<void> {
  const len = Number(arg('len', '64'));
  const R = Number(arg('repeat', '10'));
  const { cpu, gpu, ids, feats } = await cpuAndGpu(dir, model);
  const H = cpu.hidden;
  const embedsOf = async (m: VlmModel) => {
    const s = m.newSession();
    const e = (await m.promptEmbeds(s, ids, feats)).slice(0, len * H);
    s.dispose();
    return e;
  };
  const prefill = async (m: VlmModel) => {
    const s = m.newSession();
    const out = (await s.prefill([await embedsOf(m)], { all: true }))[0];
    s.dispose();
    return out;
  };
  const ref = await prefill(cpu);
  let first: Float32Array[] | undefined;
  for (let r = 0; r < R; r++) {
    const t = performance.now();
    const g = await prefill(gpu);
    const vsCpu = Math.max(...g.map((l, p) => maxAbs(l, ref[p])));
    const vsFirst = first ? g.map((l, p) => maxAbs(l, first![p])) : [];
    const off = vsFirst.map((d, p) => (d > 1e-4 ? p : -1)).filter((p) => p >= 0);
    console.log(
      `run ${r}: ${(performance.now() - t).toFixed(0)} ms; max |webgpu − cpu| ${vsCpu.toExponential(3)}${first ? `; max |run − run 0| ${Math.max(...vsFirst).toExponential(3)}${off.length ? ` at ${off.length} positions (${off.slice(0, 12).join(', ')})` : ''}` : ''}`,
    );
    first ??= g;
  }
  await gpu.release();
  await cpu.release();
}

/**
 * Does a WebGPU prefill go wrong where the prompt is cut into chunks? The first `--len` positions
 * of page 1's prompt prefilled in chunks of each `--chunks` size (a chunk of S rows runs against
 * the cache of the chunks before it), on the CPU and on WebGPU with the same chunks; per chunk:
 * its rows, its past, max |Δlogit| between the providers.
 */
async function chunksPhase(dir: string, model: string): Promise<void> {
  const len = Number(arg('len', '128'));
  const sizes = arg('chunks', '64,128').split(',').map(Number);
  const { cpu, gpu, ids, feats } = await cpuAndGpu(dir, model);
  const H = cpu.hidden;
  const V = 100352;
  const s0 = cpu.newSession();
  const embeds = (await cpu.promptEmbeds(s0, ids, feats)).slice(0, len * H);
  s0.dispose();
  const prefill = async (m: VlmModel, chunk: number) => {
    // The session's own model record with a logits budget that makes chunks of `chunk` rows.
    const base = m.newSession() as unknown as { model: DecoderModel };
    const s = new DecoderSession({ ...base.model, prefillLogitsBytes: chunk * V * 4 });
    const out = (await s.prefill([embeds], { all: true }))[0];
    s.dispose();
    return out;
  };
  for (const c of sizes) {
    const t = performance.now();
    const a = await prefill(cpu, c);
    const b = await prefill(gpu, c);
    const parts: string[] = [];
    for (let c0 = 0; c0 < len; c0 += c) {
      const c1 = Math.min(len, c0 + c);
      let d = 0;
      for (let p = c0; p < c1; p++) d = Math.max(d, maxAbs(a[p], b[p]));
      parts.push(`rows ${c0}–${c1 - 1} (past ${c0}): ${d.toExponential(2)}`);
    }
    console.log(`len ${len}, chunks of ${c} (${(performance.now() - t).toFixed(0)} ms): ${parts.join('; ')}`);
  }
  await gpu.release();
  await cpu.release();
}

/**
 * Which node? `--graph` is the decoder with every node output made a graph output (Python's
 * onnx: scripts/onnx_all_outputs.py). One chunk of `--rows` prompt rows after `--past` prompt
 * positions (the CPU-prefilled cache `cc` cut to `--past`), run on the CPU and on WebGPU from the
 * same feeds; every output compared in graph order: the first nodes whose outputs differ.
 */
async function nodesPhase(dir: string, model: string): Promise<void> {
  const past = Number(arg('past', '64'));
  const S = Number(arg('rows', '64'));
  const graph = arg('graph', '');
  if (!graph) throw new Error('--graph is required');
  const cpu = await VlmModel.load({ modelsDir: model, providers: ['cpu'], threads: 1 });
  const pre = await preprocessImage(await pageImage(), cpu.config.preprocess);
  const ids = cpu.promptIds(pre, PAGE_INSTRUCTION);
  const feats = loadFloats(join(dir, 'features-cpu.bin'));
  const H = cpu.hidden;
  const s0 = cpu.newSession();
  const embeds = (await cpu.promptEmbeds(s0, ids, feats)).slice(past * H, (past + S) * H);
  s0.dispose();
  const { snap } = loadCache(dir, 'cc');
  const P = snap.mask[0].length;
  const feeds: Record<string, ort.Tensor> = {
    inputs_embeds: new ort.Tensor('float32', embeds, [1, S, H]),
    attention_mask: new ort.Tensor('int64', new BigInt64Array(past + S).fill(1n), [1, past + S]),
  };
  snap.kv.forEach((pair, l) =>
    pair.forEach((t, kv) => {
      const [, heads, , D] = t.dims;
      const d = new Float32Array(heads * past * D);
      for (let h = 0; h < heads; h++) d.set(t.data.subarray(h * P * D, (h * P + past) * D), h * past * D);
      feeds[`past_key_values.${l}.${kv === 0 ? 'key' : 'value'}`] = new ort.Tensor('float32', d, [1, heads, past, D]);
    }),
  );
  const run = async (ep: string) => {
    const sess = await ort.InferenceSession.create(graph, {
      executionProviders: [ep],
      intraOpNumThreads: 1,
      graphOptimizationLevel: arg('opt', 'disabled') as 'disabled',
    });
    const out = await sess.run(feeds);
    return { out, names: sess.outputNames };
  };
  const a = await run('cpu');
  const b = await run('webgpu');
  let shown = 0;
  const limit = Number(arg('show', '25'));
  const th = Number(arg('threshold', '1e-3'));
  console.log(`rows ${S}, past ${past}: outputs in graph order with max |webgpu − cpu| > ${th}`);
  for (const n of a.names) {
    const x = a.out[n];
    const y = b.out[n];
    if (!x || !y) continue;
    let d = 0;
    if (x.type === 'float32') d = maxAbs(x.data as Float32Array, y.data as Float32Array);
    else {
      const u = x.data as ArrayLike<number | bigint>;
      const v = y.data as ArrayLike<number | bigint>;
      for (let i = 0; i < u.length; i++) if (u[i] !== v[i]) d = Infinity;
    }
    if (x.dims.join() !== y.dims.join()) d = Infinity;
    if (d > th && shown++ < limit) console.log(`  ${n} [${x.dims.join('×')}] ${x.type}: ${d.toExponential(3)}`);
  }
  console.log(`${shown} outputs over ${th} of ${a.names.length}`);
  await cpu.release();
}

/**
 * Is a saved WebGPU prefill reproducible from its own inputs? The pass that made positions
 * `--past` … `--past + --rows − 1` of cache `--cache` (a prefill chunk) run again, with the same
 * sessions Folio uses, from exactly its inputs: that cache's first `--past` positions (the earlier
 * chunks' output, copied through unchanged) and the same prompt rows (image features
 * `--features`); on WebGPU and on the CPU. Prints how far each new run's cache rows and logits are
 * from the saved ones and from each other.
 */
async function replayPhase(dir: string, model: string): Promise<void> {
  const name = arg('cache', 'gg');
  const past = Number(arg('past', '334'));
  const S = Number(arg('rows', '334'));
  const { snap } = loadCache(dir, name);
  const P = snap.mask[0].length;
  const cut = (from: number, to: number): Snapshot => ({
    mask: [new Array(to - from).fill(1)],
    kv: snap.kv.map((pair) =>
      pair.map((t) => {
        const [b, heads, , D] = t.dims;
        const d = new Float32Array(heads * (to - from) * D);
        for (let h = 0; h < heads; h++)
          d.set(t.data.subarray((h * P + from) * D, (h * P + to) * D), h * (to - from) * D);
        return { dims: [b, heads, to - from, D], data: d };
      }),
    ),
  });
  const saved = cut(past, past + S);
  const feats = loadFloats(join(dir, `features-${arg('features', 'webgpu')}.bin`));
  const runs: { provider: string; rows: Snapshot; logits: Float32Array[] }[] = [];
  for (const provider of ['webgpu', 'cpu', 'webgpu']) {
    const m = await VlmModel.load({ modelsDir: model, providers: [provider], threads: 1 });
    const pre = await preprocessImage(await pageImage(), m.config.preprocess);
    const ids = m.promptIds(pre, PAGE_INSTRUCTION);
    const s = m.newSession();
    const embeds = (await m.promptEmbeds(s, ids, feats)).slice(past * m.hidden, (past + S) * m.hidden);
    // The cache's first `past` positions and a mask over them and the new rows, as prefill sets
    // it before a chunk's run.
    s.restoreCache({ ...cut(0, past), mask: [new Array(past + S).fill(1)] });
    const t = performance.now();
    // DecoderSession's own pass (as prefill runs a chunk), positions from the cache length.
    const run = (s as unknown as { run: (e: Float32Array, pos: number[], k: number) => Promise<Float32Array[][]> }).run;
    const logits = (await run.call(s, embeds, [], S))[0].map((l) => l.slice());
    const after = s.snapshotCache();
    s.dispose();
    const rows: Snapshot = {
      mask: [new Array(S).fill(1)],
      kv: after.kv.map((pair) =>
        pair.map((t) => {
          const [b, heads, T, D] = t.dims;
          const d = new Float32Array(heads * S * D);
          for (let h = 0; h < heads; h++) d.set(t.data.subarray((h * T + past) * D, (h * T + past + S) * D), h * S * D);
          return { dims: [b, heads, S, D], data: d };
        }),
      ),
    };
    const dCache = Math.max(...rows.kv.flatMap((pair, l) => pair.map((t, kv) => maxAbs(t.data, saved.kv[l][kv].data))));
    console.log(
      `${provider}: the pass ${(performance.now() - t).toFixed(0)} ms; its cache rows vs the saved ${name} rows: ${dCache.toExponential(3)}`,
    );
    runs.push({ provider, rows, logits });
    await m.release();
  }
  const cmp = (x: (typeof runs)[number], y: (typeof runs)[number]) =>
    `cache ${Math.max(...x.rows.kv.flatMap((pair, l) => pair.map((t, kv) => maxAbs(t.data, y.rows.kv[l][kv].data)))).toExponential(3)}, logits ${Math.max(...x.logits.map((l, i) => maxAbs(l, y.logits[i]))).toExponential(3)}`;
  console.log(
    `webgpu run 1 vs cpu: ${cmp(runs[0], runs[1])}; webgpu run 2 vs cpu: ${cmp(runs[2], runs[1])}; webgpu run 1 vs run 2: ${cmp(runs[0], runs[2])}`,
  );
}

async function main(): Promise<void> {
  const phase = process.argv[2];
  const dir = arg('dir', '');
  if (!dir) throw new Error('--dir is required');
  mkdirSync(dir, { recursive: true });
  const tmp = mkdtempSync(join(tmpdir(), 'folio-webgpu-prefill-'));
  try {
    const model = modelFolder(join(tmp, 'model'));
    if (phase === 'prefill') await prefillPhase(dir, model);
    else if (phase === 'verify') await verifyPhase(dir, model);
    else if (phase === 'repeat') await repeatPhase(dir, model);
    else if (phase === 'chunks') await chunksPhase(dir, model);
    else if (phase === 'nodes') await nodesPhase(dir, model);
    else if (phase === 'replay') await replayPhase(dir, model);
    else throw new Error(`phase must be prefill, verify or repeat, not ${phase}`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
