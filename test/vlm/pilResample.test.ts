/**
 * The resampling kernels (server/vlm/pilResample.ts) against each other: the WebAssembly SIMD
 * passes, the TypeScript passes of the chain and the generic `pilResize` must give the same
 * bytes for every filter, up- and downscaling, RGB and 4-byte pixels — on random images, where
 * an off-by-one in a window, a wrong rounding or a missed clip shows. (Both are also held to
 * transformers' Pillow tiles in pillowParity.test.ts.) And the shipped WebAssembly bytes are
 * the assembly of the .wat source.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import {
  defaultResampleKernel,
  pilResize,
  pilResizeChain,
  pilResizeTiles,
  type PilFilter,
  type RgbImage,
} from '../../server/vlm/pilResample';
import { repoRoot } from '../helpers/corpus';

/** A small deterministic generator (the same images on every run). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Random RGB content with sharp edges and flat runs (like text on a page), plus noise. */
function image(r: () => number, width: number, height: number, pix: 3 | 4): RgbImage {
  const data = new Uint8Array(width * height * pix);
  for (let i = 0; i < width * height; i++) {
    const edge = r() < 0.3;
    for (let c = 0; c < pix; c++) data[i * pix + c] = edge ? (r() < 0.5 ? 0 : 255) : Math.floor(r() * 256);
  }
  return { data, width, height, pix };
}

/** The red, green and blue bytes of an image, packed. */
function rgb(img: RgbImage): Uint8Array {
  const out = new Uint8Array(img.width * img.height * 3);
  for (let i = 0; i < img.width * img.height; i++)
    for (let c = 0; c < 3; c++) out[i * 3 + c] = img.data[i * img.pix + c];
  return out;
}

function firstDifference(a: Uint8Array, b: Uint8Array): string {
  if (a.length !== b.length) return `lengths ${a.length} and ${b.length}`;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return `byte ${i}: ${a[i]} vs ${b[i]}`;
  return '';
}

const FILTERS: PilFilter[] = ['lanczos', 'bicubic', 'bilinear', 'hamming', 'box', 'nearest'];

test('this runtime runs the WebAssembly SIMD kernels', () => {
  assert.equal(defaultResampleKernel(), 'wasm');
});

test('WebAssembly, TypeScript chain and pilResize agree on 120 random chains, every filter', () => {
  const r = rng(38);
  const size = () => 1 + Math.floor(r() * 90);
  let cases = 0;
  for (let n = 0; n < 120; n++) {
    const filter = FILTERS[n % FILTERS.length];
    const src = image(r, size(), size(), r() < 0.5 ? 3 : 4);
    // Two or three steps, each up, down or the same size on each side.
    const sizes: { width: number; height: number }[] = [];
    let w = src.width;
    let h = src.height;
    for (let s = 0, steps = 2 + Math.floor(r() * 2); s < steps; s++) {
      const pick = (v: number) => (r() < 0.2 ? v : r() < 0.5 ? Math.max(1, Math.floor(v * (0.1 + r()))) : size() * 2);
      w = pick(w);
      h = pick(h);
      sizes.push({ width: w, height: h });
    }
    const wasm = pilResizeChain(src, sizes, filter, 'wasm').map(rgb);
    const js = pilResizeChain(src, sizes, filter, 'js').map(rgb);
    // pilResize step by step on packed RGB: the reference composition.
    let ref = rgb(src);
    let [rw, rh] = [src.width, src.height];
    sizes.forEach((s, i) => {
      ref = pilResize(ref, rw, rh, 3, s.width, s.height, filter);
      [rw, rh] = [s.width, s.height];
      const where = `case ${n} (${filter}, ${src.width}×${src.height}×${src.pix} → ${sizes.map((z) => `${z.width}×${z.height}`).join(' → ')}), step ${i}`;
      assert.equal(firstDifference(js[i], ref), '', `TypeScript chain vs pilResize, ${where}`);
      assert.equal(firstDifference(wasm[i], ref), '', `WebAssembly vs pilResize, ${where}`);
    });
    cases++;
  }
  assert.equal(cases, 120);
});

test('clipping: values past 0 and 255 (Lanczos ringing on hard edges) clip as in Pillow', () => {
  // A one-pixel-wide black line on white, upscaled: Lanczos overshoots on both sides.
  const w = 9;
  const src: RgbImage = { data: new Uint8Array(w * 3).fill(255), width: w, height: 1, pix: 3 };
  src.data.fill(0, 4 * 3, 5 * 3);
  const [up] = pilResizeChain(src, [{ width: 31, height: 1 }], 'lanczos', 'wasm');
  const ref = pilResize(rgb(src), w, 1, 3, 31, 1, 'lanczos');
  assert.equal(firstDifference(rgb(up), ref), '');
  assert.ok(ref.includes(255) && ref.includes(0), 'the overshoot clipped to 255 and the undershoot to 0');
});

test('tiles: the WebAssembly and TypeScript paths write the same float planes', () => {
  const r = rng(7);
  const src = image(r, 300, 200, 3);
  const lut = new Float32Array(768);
  for (let i = 0; i < 768; i++) lut[i] = ((i % 256) / 255 - 0.5) / (0.5 + Math.floor(i / 256));
  const sizes = [
    { width: 96, height: 64 },
    { width: 128, height: 64 },
    { width: 32, height: 32 },
  ];
  const tiles = [
    { image: 1, x0: 0, y0: 0 },
    { image: 1, x0: 96, y0: 32 },
    { image: 2, x0: 0, y0: 0 },
  ];
  const a = pilResizeTiles(src, sizes, 'lanczos', tiles, 32, lut, 'wasm');
  const b = pilResizeTiles(src, sizes, 'lanczos', tiles, 32, lut, 'js');
  assert.equal(a.length, 3 * 3 * 32 * 32);
  assert.deepEqual(a, b);
  // The first value of tile 2's blue plane is the global image's first blue byte through the table.
  const [, , global] = pilResizeChain(src, sizes, 'lanczos', 'js');
  assert.equal(a[2 * 3 * 1024 + 2 * 1024], lut[512 + global.data[2]]);
  assert.throws(() => pilResizeTiles(src, sizes, 'lanczos', [{ image: 1, x0: 100, y0: 0 }], 32, lut), /outside/);
});

test('the shipped WebAssembly (pilResampleWasm.ts) is the assembly of pilResample.wat', () => {
  const r = spawnSync(process.execPath, [join(repoRoot(), 'scripts', 'buildResampleWasm.mjs'), '--check'], {
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
});
