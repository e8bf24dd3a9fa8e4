/**
 * Levenshtein distance with Myers' bit-parallel algorithm in Hyyrö's multi-block form: one
 * column of the DP matrix is held as +1/-1 vertical-delta bit vectors, 32 pattern characters per
 * machine word, so two 50 KB texts take ~80 M word steps instead of 2.5 G cell updates.
 */

/** Edit distance (insert, delete, substitute; each cost 1) between `a` and `b`, by UTF-16 unit. */
export function levenshtein(a: string, b: string): number {
  // Common prefix and suffix never change the distance and are free to drop.
  let start = 0;
  while (start < a.length && start < b.length && a.charCodeAt(start) === b.charCodeAt(start)) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a.charCodeAt(endA - 1) === b.charCodeAt(endB - 1)) {
    endA--;
    endB--;
  }
  let p = a.slice(start, endA);
  let t = b.slice(start, endB);
  // The pattern (bit vectors) is the shorter string: fewer blocks per text character.
  if (p.length > t.length) [p, t] = [t, p];
  const m = p.length;
  const n = t.length;
  if (m === 0) return n;

  const blocks = Math.ceil(m / 32);
  // Peq: for each character, a bit per pattern position where it occurs.
  const peq = new Map<number, Int32Array>();
  for (let i = 0; i < m; i++) {
    const c = p.charCodeAt(i);
    let v = peq.get(c);
    if (!v) peq.set(c, (v = new Int32Array(blocks)));
    v[i >>> 5] |= 1 << (i & 31);
  }
  const none = new Int32Array(blocks);
  const pv = new Int32Array(blocks).fill(-1);
  const mv = new Int32Array(blocks);
  const lastBit = 1 << ((m - 1) & 31);
  const last = blocks - 1;
  let score = m;

  for (let j = 0; j < n; j++) {
    const eqs = peq.get(t.charCodeAt(j)) ?? none;
    // Horizontal delta entering the top of block 0: row 0 of the matrix is 0,1,2,… so +1.
    let hin = 1;
    for (let k = 0; k < blocks; k++) {
      const pvk = pv[k];
      const mvk = mv[k];
      let eq = eqs[k];
      const xv = eq | mvk;
      if (hin < 0) eq |= 1;
      // The addition's carry out of the word is dropped on purpose: `hin` carries it.
      const xh = ((((eq & pvk) + pvk) | 0) ^ pvk) | eq;
      let ph = mvk | ~(xh | pvk);
      let mh = pvk & xh;
      const high = k === last ? lastBit : 0x80000000 | 0;
      let hout = 0;
      if (ph & high) hout = 1;
      else if (mh & high) hout = -1;
      ph <<= 1;
      mh <<= 1;
      if (hin < 0) mh |= 1;
      else if (hin > 0) ph |= 1;
      pv[k] = mh | ~(xv | ph);
      mv[k] = ph & xv;
      hin = hout;
    }
    score += hin;
  }
  return score;
}

/** Normalized edit distance: distance / length of the longer string; 0 = identical, 1 = nothing shared. */
export function normalizedEditDistance(a: string, b: string): number {
  const len = Math.max(a.length, b.length);
  return len === 0 ? 0 : levenshtein(a, b) / len;
}

/** Plain O(m·n) dynamic programming, kept as the reference the fast version is tested against. */
export function levenshteinReference(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}
