/**
 * A code listing's lines rebuilt on its character grid. Listings typeset on a fixed pitch
 * (LaTeX `listings`, which places every character in a column of `basewidth`) write each token
 * as a run moved by small kerns, and the text layer then reads "add (a , b ) {" for
 * "add(a, b) {": a space wherever a kern is wider than a guess, not where the listing has one.
 * On a fixed pitch the geometry says how many characters a run holds (its width over the pitch)
 * and which column it starts in, so a run holding fewer columns than its text has characters
 * loses the extra spaces (those beside punctuation first, where code has them least), and the
 * gaps between runs become as many spaces as columns they cover.
 */
import type { TextSpan } from '../../model/content';

interface LineLike {
  spans: TextSpan[];
  fontSize: number;
}

/** The pitch: the median width per character of the runs of 3+ characters with no space. */
export function codePitch(lines: LineLike[]): number | undefined {
  const ws: number[] = [];
  for (const l of lines)
    for (const s of l.spans) {
      const t = s.text;
      if (t.length >= 3 && !/\s/.test(t) && s.monospace) ws.push((s.bbox.x1 - s.bbox.x0) / t.length);
    }
  if (ws.length < 2) return undefined;
  ws.sort((a, b) => a - b);
  return ws[Math.floor(ws.length / 2)];
}

/** Drops `n` of the spaces of `t`, those beside punctuation first, then from the right. */
function dropSpaces(t: string, n: number): string {
  const chars = [...t];
  const order: number[] = [];
  const punct = /[()[\]{}.,;:'"]/;
  chars.forEach((c, i) => {
    if (c === ' ' && (punct.test(chars[i - 1] ?? '') || punct.test(chars[i + 1] ?? ''))) order.push(i);
  });
  for (let i = chars.length - 1; i >= 0; i--) if (chars[i] === ' ' && !order.includes(i)) order.push(i);
  const drop = new Set(order.slice(0, n));
  return chars.filter((_, i) => !drop.has(i)).join('');
}

/**
 * One line's text on the grid whose column 0 is at `left`; undefined when its runs do not sit
 * on the pitch (a proportional font, a run far wider or narrower than its text), so the caller
 * keeps the text layer's own. The indent and the gaps between runs are counted in pitches from
 * the runs' edges (listings kern between tokens, so absolute columns drift by a fraction).
 */
export function gridLine(l: LineLike, left: number, pitch: number): string | undefined {
  let out = '';
  let prevX1: number | undefined;
  for (const s of l.spans) {
    const t = s.text.trim();
    if (t === '') continue;
    // A run's box is its visible text's: a word space the text layer put before it takes no width.
    const cells = Math.round((s.bbox.x1 - s.bbox.x0) / pitch);
    const nonSpace = t.replace(/ /g, '').length;
    // Off the pitch: a run narrower than its letters or wider than its text.
    if (cells < nonSpace - 0.5 || cells > t.length + 1) return undefined;
    const text = t.length > cells ? dropSpaces(t, t.length - cells) : t;
    if (prevX1 === undefined) out = ' '.repeat(Math.max(0, Math.round((s.bbox.x0 - left) / pitch)));
    else {
      const gap = s.bbox.x0 - prevX1;
      let n = Math.max(0, Math.round(gap / pitch));
      if (n === 0 && /^\s/.test(s.text) && gap > 0.35 * pitch) n = 1;
      out += ' '.repeat(n);
    }
    out += text;
    prevX1 = s.bbox.x1;
  }
  return out.replace(/\s+$/, '');
}
