/**
 * Every formula Folio writes must typeset: the preview renders it with KaTeX, and so do most
 * Markdown viewers. A rebuilt formula that KaTeX rejects falls back to its characters in reading
 * order, as text inside the formula; one that still fails is dropped (its text stays on the page).
 * KaTeX is loaded lazily and only where installed (the CLI and the extension ship it); without it
 * the builder's output is written as is.
 */
interface Katex {
  renderToString(tex: string, opts: { throwOnError: boolean; displayMode: boolean; strict: string }): string;
}

let katex: Katex | null | undefined;

function load(): Katex | null {
  if (katex !== undefined) return katex;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    katex = require('katex') as Katex;
  } catch {
    katex = null;
  }
  return katex;
}

/**
 * Letters, digits, spaces and plain punctuation and operators: math that KaTeX typesets whatever
 * their order ("x+1", "f(a, b)", "up"), so KaTeX need not be asked, nor loaded (~10 ms at a
 * thread's first formula; issue 22, start-up). Anything else (a backslash, braces, scripts) asks it.
 */
const PLAIN_MATH = /^[A-Za-z0-9 .,;:!?'()[\]+\-*/=<>|]*$/;

/** True when KaTeX parses `tex` (or KaTeX is not there to ask). */
export function renders(tex: string, display: boolean): boolean {
  if (PLAIN_MATH.test(tex)) return true;
  const k = load();
  if (!k) return true;
  try {
    k.renderToString(tex, { throwOnError: true, displayMode: display, strict: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** `\text{…}` of raw characters, with TeX's special characters escaped. */
export function textFallback(raw: string): string {
  const s = raw
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\\{}$&#^_%~]/g, (c) =>
      c === '\\'
        ? '\\textbackslash{}'
        : c === '^'
          ? '\\textasciicircum{}'
          : c === '~'
            ? '\\textasciitilde{}'
            : `\\${c}`,
    );
  return s ? `\\text{${s}}` : '';
}

export function safeLatex(tex: string, raw: string, display: boolean): string {
  if (tex && renders(tex, display)) return tex;
  const fb = textFallback(raw);
  return fb && renders(fb, display) ? fb : '';
}
