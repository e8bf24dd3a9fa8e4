/**
 * Peak RSS of a full-size prefill: one page prompt (17 images: 1,088 image tokens + the text,
 * as a 1700×2200 page gives) or a batch of 8 region prompts, on the real-interface full-size
 * decoder (scripts/fixtures/fullSizeVlm.ts; 30 layers, vocab 100,352, logits for every
 * position). Image features are seeded values (the prefill costs the same whatever they are),
 * so the vision encoder is not run. Prints one JSON line; run each case in its own process,
 * since peak RSS is per process:
 *
 *   node out/scripts/bench/prefillMemory.main.js <model dir> page|regions8 [--logits-mib N]
 *
 * `--logits-mib` sets the prefill's logits budget per run (default 128, Folio's); a huge value
 * (e.g. 100000) gives the unchunked prefill: one run returning every position's logits.
 */
import { VlmModel } from '../server/vlm/model';

async function main(): Promise<void> {
  const [dir, kind] = process.argv.slice(2);
  const mi = process.argv.indexOf('--logits-mib');
  const mib = mi >= 0 ? Number(process.argv[mi + 1]) : 128;
  if (!dir || (kind !== 'page' && kind !== 'regions8'))
    throw new Error('usage: prefillMemory.main.js <model dir> page|regions8 [--logits-mib N]');
  const model = await VlmModel.load({ modelsDir: dir, providers: ['cpu'], threads: 2 });
  const rssLoaded = process.resourceUsage().maxRSS / 1024;
  const H = model.hidden;
  // Page: 4×4 tiles + global = 17 images; a region crop resized to 2048 px: 2×1 tiles + global = 3.
  const grid = kind === 'page' ? { rows: 4, cols: 4, images: 17 } : { rows: 1, cols: 2, images: 3 };
  const pre = { grid, tileSize: 512, pixelValues: new Float32Array(0) } as unknown as Parameters<
    VlmModel['promptIds']
  >[0];
  const ids = model.promptIds(pre, kind === 'page' ? 'Convert this page to docling.' : 'Convert table to OTSL.');
  const features = new Float32Array(grid.images * 64 * H);
  for (let i = 0; i < features.length; i++) features[i] = Math.sin(i) * 0.1;
  const rowsN = kind === 'page' ? 1 : 8;
  const s = model.newSession();
  // The budget is a DecoderModel setting; the benchmark sets it on this session's model.
  (s as unknown as { model: { prefillLogitsBytes?: number } }).model.prefillLogitsBytes = mib * 1024 * 1024;
  const rows: Float32Array[] = [];
  for (let r = 0; r < rowsN; r++) rows.push(await model.promptEmbeds(s, ids, features));
  const t0 = performance.now();
  await s.prefill(rows);
  const ms = performance.now() - t0;
  const peak = process.resourceUsage().maxRSS / 1024;
  console.log(
    JSON.stringify({
      kind,
      rows: rowsN,
      promptTokens: ids.length,
      logitsMiB: mib,
      decoderRuns: s.timings.runs,
      prefillS: +(ms / 1000).toFixed(1),
      rssLoadedMiB: Math.round(rssLoaded),
      peakRssMiB: Math.round(peak),
    }),
  );
  await model.release();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
