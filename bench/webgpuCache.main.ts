/**
 * What keeping the decoder's cache on the GPU saves per greedy step on WebGPU (issue 38 item 3):
 * the same decoder loaded twice on WebGPU, once copying `present.*` back to JavaScript memory
 * after each pass and uploading them again as `past_key_values.*` (Folio's path before), once
 * with `deviceCache` (the outputs stay GPU buffers and go back as they are). Both start from the
 * same seeded cache of `--context` positions and step the same tokens; blocks alternate between
 * the two so load changes hit both. Prints the median step of each and their ratio.
 *
 *   node out/scripts/bench/webgpuCache.main.js [--models <folder>] [--context 1151,4096]
 *        [--steps 12] [--blocks 3]
 *
 * Default model: the parity fixture (test/vlm/fixtures/hf-tiny-granite: 2 layers, 1 KV head of 8,
 * so its cache is small). On a machine without a GPU, WebGPU runs on SwiftShader: set
 * VK_ICD_FILENAMES and XDG_RUNTIME_DIR (docs/vlm.md "WebGPU"); its times say nothing about a GPU.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { modelFolder } from '../scripts/fixtures/hfParity';
import { VlmModel } from '../server/vlm/model';

function arg(name: string, dflt: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : dflt;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const contexts = arg('context', '1151,4096').split(',').map(Number);
  const steps = Number(arg('steps', '12'));
  const blocks = Number(arg('blocks', '3'));
  const dir = mkdtempSync(join(tmpdir(), 'folio-webgpu-cache-'));
  try {
    let modelsDir = arg('models', '');
    if (!modelsDir) {
      modelsDir = join(dir, 'model');
      modelFolder(modelsDir);
    }
    const load = (deviceCache: boolean) => VlmModel.load({ modelsDir, providers: ['webgpu'], threads: 1, deviceCache });
    const copying = await load(false);
    const device = await load(true);
    if (copying.provider !== 'webgpu' || device.provider !== 'webgpu')
      throw new Error(`WebGPU did not load (got ${copying.provider}/${device.provider})`);
    const rows: string[] = [];
    for (const ctx of contexts) {
      const times = { copying: [] as number[], device: [] as number[] };
      const tokens: Record<string, number[]> = { copying: [], device: [] };
      for (let blk = 0; blk < blocks; blk++) {
        const order = blk % 2 === 0 ? (['copying', 'device'] as const) : (['device', 'copying'] as const);
        for (const which of order) {
          const s = (which === 'copying' ? copying : device).newSession();
          s.seedCacheForBenchmark(ctx, 7);
          let id = 42358;
          // The first step uploads the seeded cache on both paths; warm the shapes, then time.
          await s.step([[id]]);
          for (let i = 0; i < steps; i++) {
            const t = performance.now();
            const [[l]] = await s.step([[id]]);
            times[which].push(performance.now() - t);
            let best = 0;
            for (let v = 1; v < l.length; v++) if (l[v] > l[best]) best = v;
            id = best;
            if (blk === 0) tokens[which].push(id);
          }
          if (which === 'device' && !s.cacheOnDevice) throw new Error('deviceCache: the cache did not stay on the GPU');
          if (which === 'copying' && s.cacheOnDevice) throw new Error('the copying path kept its cache on the GPU');
          s.dispose();
        }
      }
      if (times.copying.length === 0 || times.device.length === 0) throw new Error('no steps timed');
      const same = tokens.copying.join() === tokens.device.join();
      if (!same) throw new Error(`context ${ctx}: the two paths wrote different tokens`);
      const c = median(times.copying);
      const d = median(times.device);
      rows.push(
        `| ${ctx} | ${c.toFixed(1)} ms | ${d.toFixed(1)} ms | ${(d / c).toFixed(2)} | ${times.copying.length} + ${times.device.length} steps, same tokens |`,
      );
    }
    console.log('| context | step, cache copied | step, cache on the GPU | ratio device/copied | |');
    console.log('|---:|---:|---:|---:|---|');
    for (const r of rows) console.log(r);
    await copying.release();
    await device.release();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
