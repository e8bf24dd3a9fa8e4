/**
 * Leaves text a reader cannot see out of a page's spans (issue 31: rendering modes 3 and 7;
 * issue 39, N9: background-coloured, covered, clipped-away, squeezed and transparent text). The
 * text content does not say how its strings were drawn, so each span is matched to the runs of
 * the operator list (hiddenText.ts) that overlap it on the page: a span whose letters all come
 * from hidden runs there is left out; a span pdf.js merged from a hidden run and a visible one
 * loses the hidden run's characters. Each run left out is counted by its reason for the page's
 * warning.
 */
import type { BBox } from '../../common/protocol';
import type { HiddenReason, TextRun } from './textRun';

/** Letters only, for matching runs to text items: spacing and normalization differ between the two. */
export function matchKey(s: string): string {
  return s.normalize('NFKC').replace(/\s+/g, '');
}

/** What was left out of one page: runs by reason (`white` counts the background ones that were white on white). */
export interface HiddenCount {
  total: number;
  byReason: Partial<Record<HiddenReason, number>>;
  white: number;
}

function overlap(a: BBox, b: BBox): boolean {
  const ix = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
  const iy = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
  if (ix < 0 || iy < 0) return false;
  const aa = Math.max(0, a.x1 - a.x0) * Math.max(0, a.y1 - a.y0);
  const ab = Math.max(0, b.x1 - b.x0) * Math.max(0, b.y1 - b.y0);
  const small = Math.min(aa, ab);
  // A run of zero width (nothing but spacing) overlaps where it stands.
  if (small <= 1e-6) return true;
  return ix * iy >= 0.3 * small;
}

/** `text` without the first stretch whose letters are `key` (whitespace ignored), or null. */
export function cutKey(text: string, key: string): string | null {
  if (!key) return null;
  const letters: number[] = [];
  let flat = '';
  for (let i = 0; i < text.length; i++) {
    const k = matchKey(text[i]);
    if (!k) continue;
    flat += k;
    for (let j = 0; j < k.length; j++) letters.push(i);
  }
  const at = flat.indexOf(key);
  if (at < 0) return null;
  const from = letters[at];
  const to = letters[at + key.length - 1] + 1;
  const head = text.slice(0, from);
  const tail = text.slice(to);
  // The space that separated the cut words goes with them at either end.
  return (to === text.length ? head.trimEnd() : from === 0 ? tail.trimStart() : head + tail).replace(/\s{2,}/g, ' ');
}

/**
 * The spans a reader can see, and the count of what was left out. Runs are bucketed by rows of
 * the page so a page of thousands of lines compares each span with its neighbours only.
 */
export function leaveOutHidden<S extends { text: string; bbox: BBox }>(
  spans: S[],
  runs: TextRun[],
): { spans: S[]; left: HiddenCount } {
  const left: HiddenCount = { total: 0, byReason: {}, white: 0 };
  if (!runs.some((r) => r.hidden)) return { spans, left };
  const ROW = 24;
  const rows = new Map<number, number[]>();
  runs.forEach((r, i) => {
    const r0 = Math.floor(r.bbox.y0 / ROW);
    const r1 = Math.min(r0 + 64, Math.floor(r.bbox.y1 / ROW));
    for (let k = r0; k <= r1; k++) {
      const list = rows.get(k);
      if (list) list.push(i);
      else rows.set(k, [i]);
    }
  });
  const count = (r: TextRun, text: string): void => {
    // Runs of blank glyphs (a column of spaces behind a figure) are left out without a word.
    if (!/[\p{L}\p{N}\p{P}\p{S}]/u.test(text)) return;
    left.total++;
    left.byReason[r.hidden!] = (left.byReason[r.hidden!] ?? 0) + 1;
    if (r.white) left.white++;
  };
  const out: S[] = [];
  for (const span of spans) {
    const seen = new Set<number>();
    const r0 = Math.floor(span.bbox.y0 / ROW);
    const r1 = Math.min(r0 + 64, Math.floor(span.bbox.y1 / ROW));
    for (let k = r0; k <= r1; k++) for (const i of rows.get(k) ?? []) seen.add(i);
    const cands = [...seen]
      .sort((a, b) => a - b)
      .map((i) => runs[i])
      .filter((r) => overlap(r.bbox, span.bbox));
    const hidden = cands.filter((r) => r.hidden);
    if (hidden.length === 0) {
      out.push(span);
      continue;
    }
    const key = matchKey(span.text);
    const hiddenKey = hidden.map((r) => r.key).join('');
    const visibleKey = cands
      .filter((r) => !r.hidden)
      .map((r) => r.key)
      .join('');
    if (key && hiddenKey.includes(key) && !visibleKey.includes(key)) {
      // The runs this span came from: those whose letters are in it (or that it is part of).
      const from = hidden.filter((r) => key.includes(r.key) || r.key.includes(key));
      count(from[0] ?? hidden[0], span.text);
      continue;
    }
    // Merged with visible text: cut out each hidden run's characters.
    let text = span.text;
    for (const r of hidden) {
      if (visibleKey.includes(r.key)) continue;
      const cut = cutKey(text, r.key);
      if (cut === null) continue;
      count(r, r.text);
      text = cut;
    }
    if (text === span.text) out.push(span);
    else if (matchKey(text)) out.push({ ...span, text });
  }
  return { spans: out, left };
}

/** The page warning: "12 hidden text runs left out: 9 white on white, 3 under an opaque shape …". */
export function hiddenTextWarning(left: HiddenCount): string | undefined {
  if (left.total === 0) return undefined;
  const parts: string[] = [];
  const words: Record<HiddenReason, string> = {
    invisible: 'drawn invisibly (text rendering mode 3 or 7)',
    transparent: 'fully transparent',
    squeezed: 'squeezed under 20 % of their width (Tz)',
    clipped: 'outside the clipping path',
    background: 'in the colour of the box beneath them',
    covered: 'under an opaque shape or image drawn after them',
  };
  for (const reason of Object.keys(words) as HiddenReason[]) {
    const n = left.byReason[reason] ?? 0;
    if (n === 0) continue;
    if (reason === 'background') {
      if (left.white > 0) parts.push(`${left.white} white on white`);
      if (n - left.white > 0) parts.push(`${n - left.white} ${words.background}`);
    } else parts.push(`${n} ${words[reason]}`);
  }
  const runs = left.total === 1 ? 'hidden text run' : 'hidden text runs';
  return `${left.total} ${runs} left out (a reader of the page does not see them): ${parts.join(', ')}; --keep-hidden-text keeps them`;
}
