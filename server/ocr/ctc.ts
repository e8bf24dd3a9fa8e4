/**
 * Greedy CTC decoding that keeps where each character fired, so words can be cut apart and
 * boxed. PaddleOCR's Chinese recognizer rarely emits the space class between English words;
 * the gaps between character positions still show them.
 */

export interface DecodedChar {
  ch: string;
  /** First and last time step of the character's run. */
  t0: number;
  t1: number;
  prob: number;
  /** Highest probability of the space class on the steps since the previous character. */
  spaceBefore: number;
}

export interface DecodedLine {
  chars: DecodedChar[];
  /** Time steps that belong to this line (its own width, not the batch padding). */
  steps: number;
  /** Mean probability of the emitted characters (0 when none). */
  score: number;
}

/**
 * `probs` holds `steps × classes` softmax rows for one line, starting at `offset`.
 * Class 0 is blank; `alphabet[k]` is class k's text.
 */
export function ctcGreedy(
  probs: Float32Array,
  offset: number,
  steps: number,
  classes: number,
  alphabet: string[],
): DecodedLine {
  const chars: DecodedChar[] = [];
  const space = classes - 1;
  let prev = 0;
  let spaceMax = 0;
  for (let t = 0; t < steps; t++) {
    const row = offset + t * classes;
    let best = 0;
    let bp = probs[row];
    for (let k = 1; k < classes; k++) {
      const v = probs[row + k];
      if (v > bp) {
        bp = v;
        best = k;
      }
    }
    if (best === 0 || best === space) {
      if (probs[row + space] > spaceMax) spaceMax = probs[row + space];
    }
    if (best !== 0 && best === prev && chars.length > 0) {
      const c = chars[chars.length - 1];
      c.t1 = t;
      if (bp > c.prob) c.prob = bp;
    } else if (best !== 0) {
      chars.push({ ch: alphabet[best] ?? '', t0: t, t1: t, prob: bp, spaceBefore: spaceMax });
      spaceMax = 0;
    }
    prev = best;
  }
  const score = chars.length > 0 ? chars.reduce((s, c) => s + c.prob, 0) / chars.length : 0;
  return { chars, steps, score };
}

export interface WordSpan {
  text: string;
  /** Time-step range the word covers, as fractions of the line's steps (0–1). */
  f0: number;
  f1: number;
}

/**
 * Splits a decoded line into words. The recognizer's space class is the main signal: where it
 * wins a time step the model wrote a space, and where it merely rises above `SPACE_PROB`
 * between two characters it saw one but the blank won (the Chinese training data rarely has
 * spaces, so its space probability runs low). As a fallback a space is also restored where two
 * characters fire much farther apart than this line's median character pitch (which follows
 * font size and crop scale); the factor is large because wide letters (m, w) alone reach ~1.7×.
 */
export function splitWords(line: DecodedLine, opts: { spaceProb?: number; gapFactor?: number } = {}): WordSpan[] {
  const spaceProb = opts.spaceProb ?? SPACE_PROB;
  const gapFactor = opts.gapFactor ?? GAP_FACTOR;
  const cs = line.chars;
  if (cs.length === 0) return [];
  const pos = cs.map((c) => (c.t0 + c.t1) / 2);
  const d: number[] = [];
  for (let i = 1; i < cs.length; i++)
    if (cs[i].ch.trim() !== '' && cs[i - 1].ch.trim() !== '') d.push(pos[i] - pos[i - 1]);
  const pitch = median(d);
  const half = Math.max(0.5, pitch / 2);
  const words: WordSpan[] = [];
  let cur = '';
  let start = -1;
  let last = -1;
  const flush = () => {
    if (cur.length > 0) {
      // A character's run marks roughly its centre: pad half a pitch either side.
      words.push({
        text: cur,
        f0: Math.max(0, (cs[start].t0 - half + 0.5) / line.steps),
        f1: Math.min(1, (cs[last].t1 + half + 0.5) / line.steps),
      });
    }
    cur = '';
    start = -1;
  };
  for (let i = 0; i < cs.length; i++) {
    const c = cs[i];
    if (c.ch.trim() === '') {
      flush();
      continue;
    }
    if (start >= 0 && (c.spaceBefore > spaceProb || (pitch > 0 && pos[i] - pos[last] > pitch * gapFactor))) flush();
    if (start < 0) start = i;
    cur += c.ch;
    last = i;
  }
  flush();
  return words;
}

/**
 * Calibrated on rendered corpus pages (bench/ocr.main.ts, test/ocr/recall.test.ts): 0.03 still
 * restored every space on the lorem-ipsum page but split camel-case names ("pub tabnet"); 0.1
 * keeps both right.
 */
export const SPACE_PROB = 0.1;
export const GAP_FACTOR = 2.5;

function median(xs: number[]): number {
  if (xs.length === 0) return 0;
  const s = xs.slice().sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
