/**
 * Mutations of a PDF's bytes for the fuzzer, each fully determined by a seed: byte flips,
 * truncation, deletion of one indirect object (`N G obj … endobj`), and a zeroed range.
 */
import { seededRandom } from '../sweep/sample';

export type MutationKind = 'flip' | 'truncate' | 'delete-object' | 'zero-range';
export const MUTATIONS: MutationKind[] = ['flip', 'truncate', 'delete-object', 'zero-range'];

export interface Mutation {
  kind: MutationKind;
  seed: number;
  /** What was done, for the findings list (positions, object number). */
  note: string;
  bytes: Buffer;
}

/** Byte spans of the indirect objects in a PDF (found textually, so compressed object streams are not split). */
export function objectSpans(buf: Buffer): { num: number; start: number; end: number }[] {
  const s = buf.toString('latin1');
  const spans: { num: number; start: number; end: number }[] = [];
  const re = /(?:^|[\r\n])(\d+)\s+(\d+)\s+obj\b/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s))) {
    const start = m.index + (m[0][0] === '\r' || m[0][0] === '\n' ? 1 : 0);
    const end = s.indexOf('endobj', re.lastIndex);
    if (end < 0) break;
    spans.push({ num: Number(m[1]), start, end: end + 'endobj'.length });
    re.lastIndex = end;
  }
  return spans;
}

export function mutate(src: Buffer, kind: MutationKind, seed: number): Mutation {
  const rnd = seededRandom(seed);
  const at = (n: number) => Math.floor(rnd() * n);
  const b = Buffer.from(src);
  switch (kind) {
    case 'flip': {
      const k = 1 + at(16);
      const pos: number[] = [];
      for (let i = 0; i < k; i++) {
        const p = at(b.length);
        b[p] ^= 1 + at(255);
        pos.push(p);
      }
      return { kind, seed, note: `${k} byte(s) changed at ${pos.slice(0, 6).join(',')}${k > 6 ? ',…' : ''}`, bytes: b };
    }
    case 'truncate': {
      const n = at(b.length);
      return { kind, seed, note: `cut to ${n} of ${b.length} bytes`, bytes: b.subarray(0, n) };
    }
    case 'delete-object': {
      const spans = objectSpans(b);
      if (spans.length === 0) return mutate(src, 'flip', seed);
      const o = spans[at(spans.length)];
      return {
        kind,
        seed,
        note: `object ${o.num} deleted (bytes ${o.start}–${o.end})`,
        bytes: Buffer.concat([b.subarray(0, o.start), b.subarray(o.end)]),
      };
    }
    case 'zero-range': {
      const len = 1 + at(Math.min(512, b.length));
      const p = at(Math.max(1, b.length - len));
      b.fill(0, p, p + len);
      return { kind, seed, note: `${len} bytes zeroed at ${p}`, bytes: b };
    }
  }
}
