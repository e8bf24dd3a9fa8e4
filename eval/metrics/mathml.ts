/**
 * KaTeX's MathML of a formula, as olmOCR's MathTest compares formulas (olmocr/bench/katex/render.py
 * `compare_rendered_equations`): the content of `<semantics>` without its TeX `<annotation>`,
 * whitespace removed. olmOCR renders in a browser; KaTeX writes the same MathML in Node, so the
 * first of its two criteria needs no browser here.
 */
interface Katex {
  renderToString(
    tex: string,
    opts: { throwOnError: boolean; displayMode: boolean; strict: string; output: string },
  ): string;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const katex = require('katex') as Katex;

const cache = new Map<string, string | undefined>();

/** The formula's MathML inside `<semantics>`, no whitespace; undefined when KaTeX rejects it. */
export function mathmlInner(tex: string): string | undefined {
  if (cache.has(tex)) return cache.get(tex);
  let inner: string | undefined;
  try {
    const html = katex.renderToString(tex, {
      throwOnError: true,
      displayMode: true,
      strict: 'ignore',
      output: 'mathml',
    });
    const m = /<semantics>([\s\S]*?)<annotation\b/.exec(html);
    inner = m ? m[1]!.replace(/\s+/g, '') : undefined;
  } catch {
    inner = undefined;
  }
  cache.set(tex, inner);
  return inner;
}

/** The MathML without one outer `<mrow>` around the whole formula: its row of parts. */
export function rowOf(inner: string): string {
  const m = /^<mrow>([\s\S]*)<\/mrow>$/.exec(inner);
  // Only when that first <mrow> closes at the very end (not "<mrow>a</mrow><mo>…</mo><mrow>b</mrow>").
  if (!m) return inner;
  let depth = 0;
  for (const t of m[1]!.matchAll(/<(\/?)mrow\b[^>]*>/g)) {
    depth += t[1] ? -1 : 1;
    if (depth < 0) return inner;
  }
  return depth === 0 ? m[1]! : inner;
}
