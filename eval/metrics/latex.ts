/**
 * LaTeX formula comparison (issue 11). Two formulas that typeset the same often differ in
 * spelling; the normalization removes what carries no meaning for the reader:
 *   - whitespace and spacing commands (`\,` `\;` `\quad` `~` …), `\displaystyle`, `\limits`;
 *   - delimiter sizing: `\left`, `\right`, `\big…`;
 *   - `\dfrac`/`\tfrac` → `\frac`, `\le` → `\leq` and similar synonyms, `\overline{x}` → `\bar{x}`;
 *   - words in math: `\text{…}`, `\textrm{…}`, `\operatorname{…}` → `\mathrm{…}` (spaces inside dropped);
 *   - equation numbers (`\tag{…}`);
 *   - braces around a single token (`x^{2}` → `x^2`, `\frac{a}{b}` → `\frac a b`).
 * Exact match compares the sources with whitespace removed only.
 */

const SYNONYMS: Record<string, string> = {
  '\\le': '\\leq',
  '\\ge': '\\geq',
  '\\ne': '\\neq',
  '\\rightarrow': '\\to',
  '\\lbrace': '\\{',
  '\\rbrace': '\\}',
  '\\dots': '\\ldots',
  '\\dfrac': '\\frac',
  '\\tfrac': '\\frac',
  '\\overline': '\\bar',
  '\\vert': '|',
  '\\lvert': '|',
  '\\rvert': '|',
  '\\Vert': '\\|',
  '\\lVert': '\\|',
  '\\rVert': '\\|',
  '\\land': '\\wedge',
  '\\lor': '\\vee',
  '\\gets': '\\leftarrow',
  '\\colon': ':',
  '\\mathit': '',
  '\\mid': '|',
};

const DROP = new Set([
  '\\left',
  '\\right',
  '\\big',
  '\\Big',
  '\\bigg',
  '\\Bigg',
  '\\bigl',
  '\\bigr',
  '\\Bigl',
  '\\Bigr',
  '\\biggl',
  '\\biggr',
  '\\Biggl',
  '\\Biggr',
  '\\displaystyle',
  '\\textstyle',
  '\\limits',
  '\\nolimits',
  '\\quad',
  '\\qquad',
  '\\,',
  '\\;',
  '\\:',
  '\\!',
  '\\ ',
  '~',
  '\\nonumber',
  '\\notag',
]);

const WORD_CMDS = /\\(text|textrm|mathrm|operatorname|textnormal|mbox)\s*\{([^{}]*)\}/g;

/** Tokens: commands (`\name`, `\,`), a `\mathrm{…}` word as one token, or single characters. */
function tokens(src: string): string[] {
  const s = src
    .replace(/\\tag\*?\s*\{[^{}]*\}/g, ' ')
    .replace(WORD_CMDS, (_m, _c, w: string) => ` \u0001${w.replace(/\s+/g, '')}\u0002 `);
  const out: string[] = [];
  for (let i = 0; i < s.length;) {
    const ch = s[i]!;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (ch === '\u0001') {
      const j = s.indexOf('\u0002', i);
      out.push(`\\mathrm{${s.slice(i + 1, j)}}`);
      i = j + 1;
      continue;
    }
    if (ch === '\\') {
      const m = /^\\([A-Za-z]+|.)/.exec(s.slice(i));
      const t = m ? m[0] : '\\';
      i += t.length;
      out.push(t);
      continue;
    }
    out.push(ch);
    i++;
  }
  return out;
}

export function normalizeLatex(src: string): string {
  let t = tokens(src)
    .map((x) => (x in SYNONYMS ? SYNONYMS[x]! : x))
    .filter((x) => x !== '' && !DROP.has(x));
  // `^{\prime}` and `'` are the same prime; `\mathrm{}` of one letter is that letter upright —
  // kept, a reader sees the difference only in slant.
  t = t.map((x) => (x === '\\prime' ? "'" : x));
  // Braces around a single token carry nothing; repeat until stable (nested groups).
  let changed = true;
  while (changed) {
    changed = false;
    for (let i = 0; i + 2 < t.length; i++) {
      if (t[i] === '{' && t[i + 2] === '}' && t[i + 1] !== '{' && t[i + 1] !== '}') {
        // `\begin{aligned}` keeps its braces: the environment name is one word anyway.
        t.splice(i, 3, t[i + 1]!);
        changed = true;
      }
    }
    // `{}` empty groups.
    for (let i = 0; i + 1 < t.length; i++) {
      if (t[i] === '{' && t[i + 1] === '}') {
        t.splice(i, 2);
        changed = true;
      }
    }
  }
  // `x^'` is `x'`.
  const joined = t.join(' ').replace(/\^ '/g, "'");
  return joined;
}

export function exactLatex(src: string): string {
  return src.replace(/\s+/g, '');
}

export interface FormulaMatch {
  gt: number;
  exact: number;
  normalized: number;
}

/**
 * Formulas matched as multisets: each ground-truth formula counts once when an unused predicted
 * formula equals it (exactly, or after normalization).
 */
export function matchFormulas(gt: string[], pred: string[]): FormulaMatch {
  const count = (key: (s: string) => string) => {
    const bag = new Map<string, number>();
    for (const p of pred) bag.set(key(p), (bag.get(key(p)) ?? 0) + 1);
    let n = 0;
    for (const g of gt) {
      const k = key(g);
      const c = bag.get(k) ?? 0;
      if (c > 0) {
        n++;
        bag.set(k, c - 1);
      }
    }
    return n;
  };
  return { gt: gt.length, exact: count(exactLatex), normalized: count(normalizeLatex) };
}

/** Display (`$$…$$`, `\[…\]`) and inline (`$…$`, `\(…\)`) formulas of a Markdown text. */
export function formulasOf(md: string): { display: string[]; inline: string[] } {
  const display: string[] = [];
  const inline: string[] = [];
  let rest = md.replace(
    /\$\$([\s\S]+?)\$\$|\\\[([\s\S]+?)\\\]/g,
    (_m, a: string | undefined, b: string | undefined) => {
      display.push((a ?? b ?? '').trim());
      return ' ';
    },
  );
  // Code never holds math.
  rest = rest.replace(/```[\s\S]*?```/g, ' ');
  rest.replace(
    /(?<![\\$])\$(?!\s)([^$\n]+?)(?<![\s\\])\$(?!\d)|\\\(([\s\S]+?)\\\)/g,
    (_m, a: string | undefined, b: string | undefined) => {
      inline.push((a ?? b ?? '').trim());
      return ' ';
    },
  );
  return { display, inline };
}
