/**
 * Element types and shapes of a session's inputs and outputs, read from the session's metadata
 * (onnxruntime-node ≥ 1.21 `inputMetadata` / `outputMetadata`), and float16 ↔ float32
 * conversion. Exports differ: fp16 / q4f16 variants of granite-docling have float16 embeddings,
 * KV cache and logits where the fp32 one has float32, and heron takes uint8 pixels. Folio works in
 * float32 and converts at the session boundary only where the graph asks for float16.
 *
 * Imports nothing from onnxruntime-node (runtime.ts stays the one module that does).
 */

/** What Folio needs to know of one graph input or output. */
export interface ValueInfo {
  name: string;
  /** onnxruntime's element type name: 'float32', 'float16', 'int64', 'uint8', 'bool', … */
  type: string;
  /** Dimensions: a number when fixed, the symbolic name (or -1) when not. */
  shape: (number | string)[];
}

interface MetadataLike {
  name: string;
  isTensor?: boolean;
  type?: string;
  shape?: readonly (number | string)[];
}

interface SessionLike {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  readonly inputMetadata?: readonly MetadataLike[];
  readonly outputMetadata?: readonly MetadataLike[];
}

/** Inputs and outputs by name. Without metadata (older runtimes) types default to float32. */
export function sessionValues(session: SessionLike): {
  inputs: Map<string, ValueInfo>;
  outputs: Map<string, ValueInfo>;
} {
  const read = (names: readonly string[], meta: readonly MetadataLike[] | undefined) => {
    const out = new Map<string, ValueInfo>();
    names.forEach((name, i) => {
      const m = meta?.find((x) => x.name === name) ?? meta?.[i];
      out.set(name, { name, type: m?.type ?? 'float32', shape: m?.shape ? [...m.shape] : [] });
    });
    return out;
  };
  return {
    inputs: read(session.inputNames, session.inputMetadata),
    outputs: read(session.outputNames, session.outputMetadata),
  };
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** IEEE 754 binary32 → binary16 (round to nearest even), as the exports store fp16. */
export function toFloat16(src: Float32Array): Uint16Array {
  const out = new Uint16Array(src.length);
  for (let i = 0; i < src.length; i++) {
    f32[0] = src[i];
    const x = u32[0];
    const sign = (x >>> 16) & 0x8000;
    const exp = (x >>> 23) & 0xff;
    let mant = x & 0x7fffff;
    if (exp === 0xff) {
      out[i] = sign | 0x7c00 | (mant ? 0x200 : 0);
      continue;
    }
    const e = exp - 127 + 15;
    if (e >= 0x1f) {
      out[i] = sign | 0x7c00;
      continue;
    }
    if (e <= 0) {
      if (e < -10) {
        out[i] = sign;
        continue;
      }
      mant |= 0x800000;
      const shift = 14 - e;
      let h = mant >>> shift;
      const rem = mant & ((1 << shift) - 1);
      const half = 1 << (shift - 1);
      if (rem > half || (rem === half && h & 1)) h++;
      out[i] = sign | h;
      continue;
    }
    let h = (e << 10) | (mant >>> 13);
    const rem = mant & 0x1fff;
    if (rem > 0x1000 || (rem === 0x1000 && h & 1)) h++;
    out[i] = sign | h;
  }
  return out;
}

/** binary16 → binary32. */
export function fromFloat16(src: Uint16Array): Float32Array {
  const out = new Float32Array(src.length);
  for (let i = 0; i < src.length; i++) {
    const h = src[i];
    const sign = h & 0x8000 ? -1 : 1;
    const exp = (h >>> 10) & 0x1f;
    const mant = h & 0x3ff;
    if (exp === 0) out[i] = sign * mant * 2 ** -24;
    else if (exp === 0x1f) out[i] = mant ? NaN : sign * Infinity;
    else out[i] = sign * (1 + mant / 1024) * 2 ** (exp - 15);
  }
  return out;
}

/** A tensor's data as float32 (float16 converted; float32 returned as is). */
export function asFloat32(t: { type: string; data: unknown }): Float32Array {
  if (t.type === 'float16') return fromFloat16(t.data as Uint16Array);
  if (t.type === 'float32') return t.data as Float32Array;
  throw new Error(`expected a float tensor, got ${t.type}`);
}

/** float32 values in the element type a graph input wants ('float32' or 'float16'). */
export function floatData(values: Float32Array, type: string): Float32Array | Uint16Array {
  if (type === 'float16') return toFloat16(values);
  if (type === 'float32') return values;
  throw new Error(`this input takes ${type}, not a float type`);
}
