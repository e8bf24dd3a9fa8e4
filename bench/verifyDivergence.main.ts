/**
 * Where a k-token verification pass and one-token steps disagree (issue 38 item 2): the parity
 * fixture (test/vlm/fixtures/hf-tiny-granite) on one provider, the recorded transformers tokens
 * fed (a) one token per decoder run, as greedy decoding does, and (b) in windows of k tokens per
 * run from the same cache, as a `page` verification pass does. For every position it prints the
 * argmax of both, the recorded token, the max |difference| of the two logit rows and the top-2
 * margin of the one-token row; a row whose argmax differs is marked.
 *
 *   node out/scripts/bench/verifyDivergence.main.js [--provider webgpu] [--page page1]
 *        [--tokens 20] [--windows 0:9,9:9] [--prompt-on cpu] [--json out.json]
 *
 * A window `s:k` truncates the cache to prompt + s and steps recorded tokens s … s+k-1, so its
 * row j predicts token s+j+1, the same row the one-token pass computed after token s+j.
 * `--prompt-on cpu`: the image features and the prompt's prefill come from the CPU provider and
 * only the steps and windows run on `--provider` (on SwiftShader a page prompt takes ~10 min
 * under load, a step ~10 s); the cache the passes start from is then the same on both sides.
 * WebGPU on a machine without a GPU needs the software Vulkan device: `source
 * scripts/webgpu-env.sh` first.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HF_PARITY_PAGES, HF_PARITY_SCALE, hfParityDir, modelFolder } from '../scripts/fixtures/hfParity';
import { openPdf } from '../server/pdf/open';
import { renderPage } from '../server/pdf/render';
import { noTimings, VlmModel } from '../server/vlm/model';
import { PAGE_INSTRUCTION } from '../server/vlm/prompt';
import { repoRootFrom } from '../scripts/fixtures/realFiles';
import { top2 } from './logitStats';

interface Row {
  pos: number;
  recorded: number;
  oneRow: number;
  kRow: number;
  window: string;
  maxAbsDiff: number;
  margin1: number;
  marginK: number;
  /** Logit gap between the one-row pass's top token and the k-row pass's top token, in each pass. */
  flip?: { oneRowGap: number; kRowGap: number };
}

function arg(name: string, dflt: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : dflt;
}

function compareRow(pos: number, recorded: number[], l1: Float32Array, lk: Float32Array, window: string): Row {
  let d = 0;
  for (let v = 0; v < l1.length; v++) d = Math.max(d, Math.abs(l1[v] - lk[v]));
  const a = top2(l1);
  const b = top2(lk);
  const row: Row = {
    pos,
    recorded: recorded[pos],
    oneRow: a.id,
    kRow: b.id,
    window,
    maxAbsDiff: d,
    margin1: a.margin,
    marginK: b.margin,
  };
  if (a.id !== b.id) row.flip = { oneRowGap: l1[a.id] - l1[b.id], kRowGap: lk[b.id] - lk[a.id] };
  return row;
}

function printRows(rows: Row[], provider: string): void {
  console.log('pos  recorded  1-row   k-row   window  max|Δlogit|  top-2 margin (1-row)  (k-row)');
  for (const r of rows)
    console.log(
      `${String(r.pos).padStart(3)}  ${String(r.recorded).padStart(8)}  ${String(r.oneRow).padStart(6)}  ${String(r.kRow).padStart(6)}  ${r.window.padStart(6)}  ${r.maxAbsDiff.toExponential(3).padStart(11)}  ${r.margin1.toExponential(3).padStart(12)}  ${r.marginK.toExponential(3).padStart(12)}${r.flip ? `  FLIP (gaps ${r.flip.oneRowGap.toExponential(3)} / ${r.flip.kRowGap.toExponential(3)})` : ''}${r.oneRow !== r.recorded ? '  (1-row ≠ transformers)' : ''}`,
    );
  const worst = rows.reduce((m, r) => Math.max(m, r.maxAbsDiff), 0);
  const minMargin = rows.reduce((m, r) => Math.min(m, r.margin1), Infinity);
  console.log(
    `${provider}: max |k-row − 1-row| ${worst.toExponential(3)}; smallest top-2 margin ${minMargin.toExponential(3)}; flips ${rows.filter((r) => r.flip).length}; 1-row ≠ transformers ${rows.filter((r) => r.oneRow !== r.recorded).length}`,
  );
}

async function pageImage(page: (typeof HF_PARITY_PAGES)[number]) {
  const doc = await openPdf(join(repoRootFrom(__dirname), page.pdf));
  try {
    const img = await renderPage(doc.doc, await doc.doc.getPage(page.page), HF_PARITY_SCALE, false);
    return { data: img.data, width: img.width, height: img.height };
  } finally {
    await doc.close();
  }
}

async function main(): Promise<void> {
  const provider = arg('provider', 'webgpu');
  const pageName = arg('page', 'page1');
  const nTokens = Number(arg('tokens', '20'));
  const windows = arg('windows', '0:9,9:9')
    .split(',')
    .map((w) => w.split(':').map(Number) as [number, number]);
  const page = HF_PARITY_PAGES.find((p) => p.name === pageName);
  if (!page) throw new Error(`no parity page ${pageName}`);
  const recorded = JSON.parse(readFileSync(join(hfParityDir(), 'tokens.json'), 'utf8')).pages[pageName]
    .tokens as number[];
  const need = Math.max(nTokens, ...windows.map(([s, k]) => s + k));
  if (need > recorded.length) throw new Error(`only ${recorded.length} recorded tokens, ${need} asked`);

  const dir = mkdtempSync(join(tmpdir(), 'folio-divergence-'));
  try {
    modelFolder(join(dir, 'model'));
    let t = performance.now();
    const model = await VlmModel.load({ modelsDir: join(dir, 'model'), providers: [provider], threads: 1 });
    if (model.provider !== provider) throw new Error(`${provider} did not load (got ${model.provider})`);
    const promptOn = arg('prompt-on', '');
    const helper = promptOn
      ? await VlmModel.load({ modelsDir: join(dir, 'model'), providers: [promptOn], threads: 1 })
      : undefined;
    model.promptOn(helper);
    console.log(`load ${(performance.now() - t).toFixed(0)} ms on ${model.provider}`);
    const image = await pageImage(page);
    const timings = noTimings();
    const { ids, features } = await model.prepare({ image, instruction: PAGE_INSTRUCTION }, timings);
    console.log(`preprocess ${timings.preprocessMs.toFixed(0)} ms, vision ${timings.visionMs.toFixed(0)} ms`);
    const s = model.newSession();
    t = performance.now();
    const [[first]] = await s.prefill([await model.promptEmbeds(s, ids, features)]);
    const P = s.length;
    console.log(`prefill ${(performance.now() - t).toFixed(0)} ms (${P} tokens${promptOn ? ` on ${promptOn}` : ''})`);
    // (a) one token per run: oneRow[i] predicts recorded[i] (oneRow[0] = the prefill's last row).
    // `--reference cpu` (with --prompt-on cpu): the one-token steps run on the CPU from the same
    // cache, so only the windows cost SwiftShader time.
    const refOnPrompt = helper && arg('reference', '') === promptOn;
    const rs = refOnPrompt ? helper.newSession() : s;
    if (refOnPrompt) await rs.prefill([await helper.promptEmbeds(rs, ids, features)]);
    const oneRow: Float32Array[] = [first.slice()];
    t = performance.now();
    for (let i = 0; i < need; i++) {
      const [[l]] = await rs.step([[recorded[i]]]);
      oneRow.push(l.slice());
    }
    console.log(
      `${need} one-token steps ${(performance.now() - t).toFixed(0)} ms${refOnPrompt ? ` on ${promptOn}` : ''}`,
    );
    if (refOnPrompt) {
      rs.dispose();
      s.truncate(P);
    }
    // (b) k tokens per run from the same cache.
    const rows: Row[] = [];
    for (const [start, k] of windows) {
      s.truncate(P + start);
      t = performance.now();
      const [out] = await s.step([recorded.slice(start, start + k)]);
      const ms = performance.now() - t;
      out.forEach((lk, j) =>
        rows.push(compareRow(start + j + 1, recorded, oneRow[start + j + 1], lk, `${start}:${k}`)),
      );
      console.log(`window ${start}:${k} one run ${ms.toFixed(0)} ms`);
    }
    s.dispose();
    printRows(rows, provider);
    const out = process.argv.includes('--json') ? arg('json', '') : '';
    if (out) writeFileSync(out, JSON.stringify({ provider, page: pageName, prompt: P, rows }, null, 1));
    await model.release();
    await helper?.release();
    if (rows.length === 0) throw new Error('no rows compared');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
