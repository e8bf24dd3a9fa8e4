/**
 * Which WebGPU kernel makes a many-row verification pass disagree with one-token steps (issue 38
 * item 2)? One small ONNX graph per operator of the parity decoder's attention block
 * (test/vlm/fixtures/hf-tiny-granite: eager attention exported as Transpose + MatMul + Mul + Add
 * (mask) + Softmax + MatMul; 2 query heads, 1 KV head expanded to 2, head dim 8), fed seeded
 * random inputs of the failing shapes (S query rows against T = past + S keys), run on the CPU
 * provider and on WebGPU from the same bytes; it prints max |webgpu − cpu| per (graph, S, T).
 *
 *   node out/scripts/bench/attentionDivergence.main.js [--graphs qk,softmax,pv,attn]
 *        [--rows 1,9] [--totals 1140-1170] [--heads 2] [--dim 8] [--opt all|disabled]
 *        [--json out.json]
 *
 * On a machine without a GPU, WebGPU runs on SwiftShader: set VK_ICD_FILENAMES to Chromium's
 * vk_swiftshader_icd.json and XDG_RUNTIME_DIR (docs/vlm.md "WebGPU"). It exits non-zero when
 * nothing was compared or a session failed to load.
 */
import { writeFileSync } from 'node:fs';
import * as ort from 'onnxruntime-node';
import { DT, encodeModel, rng, type NodeInit, type ValueInit } from '../scripts/fixtures/onnxWriter';

type GraphName = 'qk' | 'qkt' | 'softmax' | 'pv' | 'attn';

function arg(name: string, dflt: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : dflt;
}

function range(spec: string): number[] {
  return spec.split(',').flatMap((part) => {
    const [a, b] = part.split('-').map(Number);
    if (b === undefined) return [a];
    return Array.from({ length: b - a + 1 }, (_, i) => a + i);
  });
}

const f = (name: string, dims: (number | string)[]): ValueInit => ({ name, type: DT.FLOAT, dims });

/** The graph, its inputs' shapes for (S, T), and the output's name. */
function graph(name: GraphName, H: number, D: number): { nodes: NodeInit[]; inputs: ValueInit[] } {
  const q = f('q', [1, H, 'S', D]);
  switch (name) {
    case 'qk': // scores = Q · Kᵀ, K given already transposed [1, H, D, T] (as the export's Transpose_3 makes it)
      return { nodes: [{ op: 'MatMul', inputs: ['q', 'kt'], outputs: ['y'] }], inputs: [q, f('kt', [1, H, D, 'T'])] };
    case 'qkt': // the export's Transpose + MatMul (the optimizer may fuse them)
      return {
        nodes: [
          { op: 'Transpose', inputs: ['k'], outputs: ['kt'], attrs: { perm: [0, 1, 3, 2] } },
          { op: 'MatMul', inputs: ['q', 'kt'], outputs: ['y'] },
        ],
        inputs: [q, f('k', [1, H, 'T', D])],
      };
    case 'softmax':
      return {
        nodes: [{ op: 'Softmax', inputs: ['x'], outputs: ['y'], attrs: { axis: -1 } }],
        inputs: [f('x', [1, H, 'S', 'T'])],
      };
    case 'pv':
      return {
        nodes: [{ op: 'MatMul', inputs: ['p', 'v'], outputs: ['y'] }],
        inputs: [f('p', [1, H, 'S', 'T']), f('v', [1, H, 'T', D])],
      };
    case 'attn': // the decoder layer's attention core, one KV head expanded to H, additive causal mask
      return {
        nodes: [
          { op: 'Expand', inputs: ['k', 'kshape'], outputs: ['ke'] },
          { op: 'Expand', inputs: ['v', 'kshape'], outputs: ['ve'] },
          { op: 'Transpose', inputs: ['ke'], outputs: ['kt'], attrs: { perm: [0, 1, 3, 2] } },
          { op: 'MatMul', inputs: ['q', 'kt'], outputs: ['s0'] },
          { op: 'Mul', inputs: ['s0', 'scale'], outputs: ['s1'] },
          { op: 'Add', inputs: ['s1', 'mask'], outputs: ['s2'] },
          { op: 'Softmax', inputs: ['s2'], outputs: ['p'], attrs: { axis: -1 } },
          { op: 'MatMul', inputs: ['p', 've'], outputs: ['y'] },
        ],
        inputs: [q, f('k', [1, 1, 'T', D]), f('v', [1, 1, 'T', D]), f('mask', [1, 1, 'S', 'T'])],
      };
  }
}

function modelBytes(name: GraphName, H: number, D: number): Uint8Array {
  const g = graph(name, H, D);
  const initializers =
    name === 'attn'
      ? [
          { name: 'kshape', type: DT.INT64, dims: [4], data: BigInt64Array.from([1n, BigInt(H), 1n, 1n]) },
          { name: 'scale', type: DT.FLOAT, dims: [], data: Float32Array.from([1 / Math.sqrt(D)]) },
        ]
      : [];
  return encodeModel({
    name,
    nodes: g.nodes,
    initializers,
    inputs: g.inputs,
    outputs: [f('y', name === 'qk' || name === 'qkt' || name === 'softmax' ? [1, H, 'S', 'T'] : [1, H, 'S', D])],
  }).model;
}

/** Seeded inputs of the shapes (S, T); attention scores of the magnitude a random decoder gives. */
let xStd = 3;
let qkStd = 1;

function feeds(name: GraphName, H: number, D: number, S: number, T: number, seed: number): Record<string, ort.Tensor> {
  const next = rng(seed);
  const rand = (n: number, std: number) =>
    Float32Array.from({ length: n }, () => (next() * 2 - 1) * std * Math.sqrt(3));
  const t = (data: Float32Array, dims: number[]) => new ort.Tensor('float32', data, dims);
  const g = graph(name, H, D);
  const out: Record<string, ort.Tensor> = {};
  for (const v of g.inputs) {
    const dims = v.dims.map((d) => (d === 'S' ? S : d === 'T' ? T : (d as number)));
    const n = dims.reduce((a, b) => a * b, 1);
    if (v.name === 'mask') {
      // causal over the last S keys: row i sees keys 0 … T − S + i
      const m = new Float32Array(n);
      for (let i = 0; i < S; i++) for (let j = T - S + i + 1; j < T; j++) m[i * T + j] = -3.4028234663852886e38;
      out[v.name] = t(m, dims);
    } else if (v.name === 'p') {
      // rows of a softmax: positive, summing to 1
      const p = rand(n, 1).map((x) => Math.exp(x));
      for (let r = 0; r < n / T; r++) {
        let s = 0;
        for (let j = 0; j < T; j++) s += p[r * T + j];
        for (let j = 0; j < T; j++) p[r * T + j] /= s;
      }
      out[v.name] = t(p, dims);
    } else out[v.name] = t(rand(n, v.name === 'x' ? xStd : v.name === 'q' || v.name === 'k' ? qkStd : 1), dims);
  }
  return out;
}

interface Result {
  graph: GraphName;
  S: number;
  T: number;
  maxAbs: number;
  maxRel: number;
  /** First differing output element (flat index → [head, row, col]) when maxAbs exceeds the noise floor. */
  worstAt: number[];
  badRows: number[];
}

async function main(): Promise<void> {
  const H = Number(arg('heads', '2'));
  const D = Number(arg('dim', '8'));
  const names = arg('graphs', 'qk,softmax,pv,attn').split(',') as GraphName[];
  const rows = range(arg('rows', '1,9'));
  const totals = range(arg('totals', '1140-1170'));
  const opt = arg('opt', 'all') as 'all' | 'disabled';
  const seed = Number(arg('seed', '38'));
  xStd = Number(arg('score-std', '3'));
  qkStd = Number(arg('qk-std', '1'));
  const results: Result[] = [];
  for (const name of names) {
    const bytes = modelBytes(name, H, D);
    const sess = async (ep: string) =>
      ort.InferenceSession.create(bytes, {
        executionProviders: [ep],
        graphOptimizationLevel: opt,
        intraOpNumThreads: 1,
      });
    const cpu = await sess('cpu');
    const gpu = await sess('webgpu');
    for (const S of rows)
      for (const T of totals) {
        if (T < S) continue;
        const fd = feeds(name, H, D, S, T, seed + T * 31 + S);
        const a = (await cpu.run(fd)).y.data as Float32Array;
        const b = (await gpu.run(fd)).y.data as Float32Array;
        let maxAbs = 0;
        let maxRel = 0;
        let worst = 0;
        const cols = name === 'qk' || name === 'qkt' || name === 'softmax' ? T : D;
        const bad = new Set<number>();
        for (let i = 0; i < a.length; i++) {
          const d = Math.abs(a[i] - b[i]);
          if (!(d <= maxAbs)) {
            maxAbs = d;
            worst = i;
          }
          maxRel = Math.max(maxRel, d / Math.max(1e-6, Math.abs(a[i])));
          if (!(d <= 1e-3 * Math.max(1, Math.abs(a[i])))) bad.add(Math.floor(i / cols) % S);
        }
        const rowOf = Math.floor(worst / cols);
        const r: Result = {
          graph: name,
          S,
          T,
          maxAbs,
          maxRel,
          worstAt: [Math.floor(rowOf / S), rowOf % S, worst % cols],
          badRows: [...bad].sort((x, y) => x - y),
        };
        results.push(r);
        console.log(
          `${name.padEnd(7)} S=${String(S).padStart(2)} T=${String(T).padStart(5)} (past ${T - S})  max|Δ| ${maxAbs.toExponential(2)}  rel ${maxRel.toExponential(2)}${r.badRows.length ? `  BAD rows ${r.badRows.join(',')} worst at [h ${r.worstAt[0]}, row ${r.worstAt[1]}, col ${r.worstAt[2]}]` : ''}`,
        );
      }
    await cpu.release();
    await gpu.release();
  }
  if (results.length === 0) throw new Error('nothing compared (empty --rows/--totals?)');
  const out = arg('json', '');
  if (out) writeFileSync(out, JSON.stringify({ heads: H, dim: D, opt, results }, null, 1));
  const bad = results.filter((r) => r.badRows.length);
  console.log(`${results.length} cases, ${bad.length} with an element off by > 1e-3 (relative above 1)`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
