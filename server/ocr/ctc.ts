/**
 * CTC greedy decoding for the PaddleOCR recognizer, keeping each character's time steps so
 * that spaces (which the Chinese-trained model rarely emits between English words) can be put
 * back from the gaps, and word boxes can be placed along the line.
 */

export interface DecodedChar {
  char: string;
  /** First and last time step of the character's run of frames. */
  t0: number;
  t1: number;
  prob: number;
}

/** Greedy path: argmax per frame, repeats merged, blanks (class 0) dropped. */
export function ctcGreedy(probs: Float32Array, offset: number, steps: number, classes: number, charset: readonly string[]): DecodedChar[] {
  const out: DecodedChar[] = [];
  let prev = -1;
  for (let t = 0; t < steps; t++) {
    const base = offset + t * classes;
    let best = 0;
    let bestP = probs[base]!;
    for (let k = 1; k < classes; k++) {
      const p = probs[base + k]!;
      if (p > bestP) {
        bestP = p;
        best = k;
      }
    }
    if (best !== 0 && best === prev) {
      const last = out[out.length - 1]!;
      last.t1 = t;
      last.prob = Math.max(last.prob, bestP);
    } else if (best !== 0) {
      out.push({ char: charset[best] ?? '', t0: t, t1: t, prob: bestP });
    }
    prev = best;
  }
  return out;
}

export interface DecodedWord {
  text: string;
  /** Span along the line in time steps (fractional; a step covers [t, t+1)). */
  s0: number;
  s1: number;
}

export interface DecodedLine {
  text: string;
  score: number;
  words: DecodedWord[];
}

/**
 * Ratio of a gap (distance between consecutive character centres minus the typical pitch) to
 * the typical pitch above which a space is inserted. Measured on rendered English text: inside
 * a word consecutive centres are about 1 pitch apart, across a space about 1.8–2.3 pitches
 * (see test/ocr/ctc.test.ts for the calibration check).
 */
export const SPACE_GAP_RATIO = 0.45;

/** Characters narrow enough that their spacing says little about word gaps. */
const NARROW = /[.,;:'"!|il1()\[\]`’‘“”-]/;

/**
 * Groups decoded characters into words. Emitted spaces split words; otherwise a space goes where
 * the centre-to-centre distance exceeds the line's typical pitch by SPACE_GAP_RATIO of it. The
 * typical pitch is a low quantile of the distances (most neighbours are inside words).
 */
export function toWords(chars: readonly DecodedChar[]): DecodedLine {
  const centres = chars.map((c) => (c.t0 + c.t1 + 1) / 2);
  const gaps: number[] = [];
  for (let i = 1; i < chars.length; i++) {
    if (chars[i]!.char === ' ' || chars[i - 1]!.char === ' ') continue;
    gaps.push(centres[i]! - centres[i - 1]!);
  }
  const sorted = [...gaps].sort((a, b) => a - b);
  // 35th percentile: robust to the word gaps (a minority) and to narrow letters.
  const pitch = sorted.length >= 3 ? sorted[Math.floor(sorted.length * 0.35)]! : sorted.length > 0 ? sorted[0]! : 1;
  const words: DecodedWord[] = [];
  let cur: DecodedChar[] = [];
  const flush = () => {
    if (cur.length === 0) return;
    const first = cur[0]!, last = cur[cur.length - 1]!;
    const half = pitch / 2;
    words.push({
      text: cur.map((c) => c.char).join(''),
      s0: Math.max(0, (first.t0 + first.t1 + 1) / 2 - half),
      s1: (last.t0 + last.t1 + 1) / 2 + half,
    });
    cur = [];
  };
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c.char === ' ') {
      flush();
      continue;
    }
    if (cur.length > 0) {
      const prev = cur[cur.length - 1]!;
      let d = centres[i]! - (prev.t0 + prev.t1 + 1) / 2;
      // Narrow glyphs sit closer to or further from neighbours than a full pitch; soften them.
      if (NARROW.test(c.char) || NARROW.test(prev.char)) d -= pitch * 0.25;
      if (d > pitch * (1 + SPACE_GAP_RATIO)) flush();
    }
    cur.push(c);
  }
  flush();
  const score = chars.length > 0 ? chars.reduce((s, c) => s + c.prob, 0) / chars.length : 0;
  return { text: words.map((w) => w.text).join(' '), score, words };
}
