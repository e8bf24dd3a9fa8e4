/**
 * Normalized character edit distance (Levenshtein / max length) for comparing Markdown with the
 * corpus ground truth. Two rolling rows: O(n·m) time, O(m) memory; fine for the docling/pdf
 * files (≤ 45 KB).
 */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length < b.length) [a, b] = [b, a];
  const m = b.length;
  if (m === 0) return a.length;
  let prev = new Int32Array(m + 1);
  let cur = new Int32Array(m + 1);
  for (let j = 0; j <= m; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= m; j++) {
      const sub = prev[j - 1]! + (ca === b.charCodeAt(j - 1) ? 0 : 1);
      const del = prev[j]! + 1;
      const ins = cur[j - 1]! + 1;
      cur[j] = sub < del ? (sub < ins ? sub : ins) : del < ins ? del : ins;
    }
    [prev, cur] = [cur, prev];
  }
  return prev[m]!;
}

export function normalizedEditDistance(a: string, b: string): number {
  const n = Math.max(a.length, b.length);
  return n === 0 ? 0 : editDistance(a, b) / n;
}
