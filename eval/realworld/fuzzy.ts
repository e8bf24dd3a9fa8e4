/**
 * The two fuzzy matchers olmOCR-bench uses, reimplemented (no Python dependency):
 *
 * - `partialRatio` = rapidfuzz `fuzz.partial_ratio` / 100: the shorter string is aligned with
 *   every window of the longer one — prefixes shorter than it, every full-length window, and
 *   suffixes — and scored by the Indel similarity 2·LCS / (len a + len b); the best window wins.
 *   Equal lengths are tried both ways round, as rapidfuzz does. LCS is computed bit-parallel
 *   (Hyyrö's `V' = (V + (V & M)) | (V & ~M)`), 32 pattern characters per word, so a 60-character
 *   query over a 6 000-character page costs ~0.4 M word operations.
 *   Difference: for needles longer than 64 characters rapidfuzz's C++ switches to a search that
 *   may skip windows; this one scores every window, so it can only find an equal or better match.
 * - `ratio` = rapidfuzz `fuzz.ratio` / 100 (Indel similarity of the whole strings).
 * - `nearMatchStarts` = the start offsets of fuzzysearch `find_near_matches(…, max_l_dist=k)`:
 *   every position where some substring beginning there is within Levenshtein distance k of the
 *   needle. fuzzysearch reports one match per overlapping group (its best), so it may list fewer
 *   starts; the order test only asks whether some `before` start precedes some `after` start,
 *   which is the same answer unless a group's best start differs from its earliest/latest one.
 *
 * Strings are compared by code point, as Python does.
 */

/** Per-character match masks of a pattern, `words` 32-bit words each. */
function masks(p: string[]): { words: number; m: Map<string, Uint32Array> } {
  const words = Math.ceil(p.length / 32);
  const m = new Map<string, Uint32Array>();
  p.forEach((ch, i) => {
    let mk = m.get(ch);
    if (!mk) m.set(ch, (mk = new Uint32Array(words)));
    mk[i >>> 5] |= 1 << (i & 31);
  });
  return { words, m };
}

function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/**
 * Runs the bit-parallel LCS of `p` (its masks) against `t[from…]`, calling `at(k, lcs)` after each
 * of up to `steps` characters (k = characters consumed); `at` returns true to stop early.
 */
function lcsScan(
  pm: { words: number; m: Map<string, Uint32Array> },
  plen: number,
  t: string[],
  from: number,
  steps: number,
  at: (k: number, lcs: number) => boolean,
): void {
  const { words, m } = pm;
  const v = new Uint32Array(words).fill(0xffffffff);
  const lastBits = plen & 31;
  const lastMask = lastBits === 0 ? 0xffffffff : (1 << lastBits) - 1;
  const zero = new Uint32Array(words);
  const end = Math.min(t.length, from + steps);
  for (let j = from; j < end; j++) {
    const mk = m.get(t[j]) ?? zero;
    let carry = 0;
    for (let w = 0; w < words; w++) {
      const vw = v[w];
      const u = (vw & mk[w]) >>> 0;
      const sum = vw + u + carry; // u ≤ vw < 2^32: sum < 2^33, exact in a double
      carry = sum > 0xffffffff ? 1 : 0;
      v[w] = (sum >>> 0) | (vw & ~mk[w]);
    }
    let zeros = 0;
    for (let w = 0; w < words; w++) {
      const bits = w === words - 1 ? ~v[w] & lastMask : ~v[w];
      zeros += popcount32(bits >>> 0);
    }
    if (at(j - from + 1, zeros)) return;
  }
}

function lcs(a: string[], b: string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  let best = 0;
  lcsScan(masks(a), a.length, b, 0, b.length, (_k, l) => ((best = l), false));
  return best;
}

/** rapidfuzz `fuzz.ratio` / 100. */
export function ratio(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  if (x.length + y.length === 0) return 1;
  return (2 * lcs(x, y)) / (x.length + y.length);
}

/** Best window score of `shorter` against `longer` (rapidfuzz's `_partial_ratio_impl`). */
function partialImpl(s: string[], l: string[]): number {
  const n = s.length;
  const pm = masks(s);
  const set = new Set(s);
  let best = 0;
  const score = (lcsLen: number, windowLen: number) => (2 * lcsLen) / (n + windowLen);
  // Prefixes l[0:k], k < n, and the full window at 0.
  lcsScan(pm, n, l, 0, n, (k, v) => {
    best = Math.max(best, score(v, k));
    return best === 1;
  });
  if (best === 1) return 1;
  for (let i = 1; i < l.length; i++) {
    // A window starting on a character the needle lacks is dominated by the one starting next.
    if (!set.has(l[i])) continue;
    const full = i + n <= l.length;
    lcsScan(pm, n, l, i, n, (k, v) => {
      // Full windows count at length n; past l.length - n only suffixes exist (all of l[i:]).
      if ((full && k === n) || (!full && i + k === l.length)) best = Math.max(best, score(v, k));
      return best === 1;
    });
    if (best === 1) return 1;
  }
  return best;
}

/** rapidfuzz `fuzz.partial_ratio` / 100 (0 when either string is empty, 1 when both are). */
export function partialRatio(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  if (x.length === 0 && y.length === 0) return 1;
  if (x.length === 0 || y.length === 0) return 0;
  if (x.length < y.length) return partialImpl(x, y);
  if (y.length < x.length) return partialImpl(y, x);
  const r = partialImpl(x, y);
  return r === 1 ? r : Math.max(r, partialImpl(y, x));
}

/**
 * Start offsets (code-point indices) of substrings of `text` within Levenshtein distance `k` of
 * `needle`. k = 0 is exact search (overlapping occurrences). Otherwise Sellers' algorithm on the
 * reversed strings: a reversed match ending at r is a forward match starting at len − 1 − r.
 */
export function nearMatchStarts(needle: string, text: string, k: number): number[] {
  const p = [...needle];
  const t = [...text];
  const out: number[] = [];
  if (p.length === 0) return out;
  if (k === 0) {
    outer: for (let i = 0; i + p.length <= t.length; i++) {
      for (let j = 0; j < p.length; j++) if (t[i + j] !== p[j]) continue outer;
      out.push(i);
    }
    return out;
  }
  const rp = p.slice().reverse();
  const m = rp.length;
  let col = Array.from({ length: m + 1 }, (_, i) => i);
  for (let r = 0; r < t.length; r++) {
    const ch = t[t.length - 1 - r];
    const next = new Array<number>(m + 1);
    next[0] = 0;
    for (let i = 1; i <= m; i++)
      next[i] = Math.min(col[i] + 1, next[i - 1] + 1, col[i - 1] + (rp[i - 1] === ch ? 0 : 1));
    col = next;
    if (col[m] <= k) out.push(t.length - 1 - r);
  }
  return out.reverse();
}
