/**
 * Characters of typeset math → LaTeX. Greek letters and symbols become their commands, Unicode
 * math alphanumerics (U+1D400–U+1D7FF) their plain letter (the style is dropped: 𝑥 → x,
 * 𝐱 → \mathbf{x} for bold only), and the few characters TeX fonts draw with other code points
 * (the CM minus, primes) their usual spelling. Every value renders in KaTeX.
 */

/** Fonts that only set math (TeX's math italics, symbols and extension fonts, OpenType math fonts). */
export const MATH_FONT_RE =
  /^(cmmi|cmsy|cmex|cmbsy|cmmib|msam|msbm|eufm|eusm|rsfs|stix|cambriamath|cambria.?math|mathematicalpi|euclid|mt ?extra|lmmath|lmsy|lmex|latinmodern-?math|latinmodernmath|xits|asana|texgyre\w*-?math|dejavumath|libertinusmath|firamath|garamondmath|opensymbol|katex_(math|main-italic|size|ams))/i;

const GREEK: Record<string, string> = {
  α: '\\alpha',
  β: '\\beta',
  γ: '\\gamma',
  δ: '\\delta',
  ε: '\\varepsilon',
  ϵ: '\\epsilon',
  ζ: '\\zeta',
  η: '\\eta',
  θ: '\\theta',
  ϑ: '\\vartheta',
  ι: '\\iota',
  κ: '\\kappa',
  λ: '\\lambda',
  μ: '\\mu',
  ν: '\\nu',
  ξ: '\\xi',
  π: '\\pi',
  ϖ: '\\varpi',
  ρ: '\\rho',
  ϱ: '\\varrho',
  σ: '\\sigma',
  ς: '\\varsigma',
  τ: '\\tau',
  υ: '\\upsilon',
  φ: '\\varphi',
  ϕ: '\\phi',
  ϰ: '\\varkappa',
  χ: '\\chi',
  ψ: '\\psi',
  ω: '\\omega',
  Γ: '\\Gamma',
  Δ: '\\Delta',
  Θ: '\\Theta',
  Λ: '\\Lambda',
  Ξ: '\\Xi',
  Π: '\\Pi',
  Σ: '\\Sigma',
  Υ: '\\Upsilon',
  Φ: '\\Phi',
  Ψ: '\\Psi',
  Ω: '\\Omega',
};

const SYMBOLS: Record<string, string> = {
  '−': '-',
  '–': '-',
  '∗': '*',
  '×': '\\times',
  '÷': '\\div',
  '±': '\\pm',
  '∓': '\\mp',
  '·': '\\cdot',
  '⋅': '\\cdot',
  '∘': '\\circ',
  '•': '\\bullet',
  '⊗': '\\otimes',
  '⊕': '\\oplus',
  '⊙': '\\odot',
  '†': '\\dagger',
  '⋆': '\\star',
  '≤': '\\leq',
  '≥': '\\geq',
  '⩽': '\\leq',
  '⩾': '\\geq',
  '≠': '\\neq',
  '≈': '\\approx',
  '≡': '\\equiv',
  '∼': '\\sim',
  '≃': '\\simeq',
  '≅': '\\cong',
  '∝': '\\propto',
  '≪': '\\ll',
  '≫': '\\gg',
  '≺': '\\prec',
  '≻': '\\succ',
  '≔': ':=',
  '∈': '\\in',
  '∉': '\\notin',
  '∋': '\\ni',
  '⊂': '\\subset',
  '⊃': '\\supset',
  '⊆': '\\subseteq',
  '⊇': '\\supseteq',
  '∪': '\\cup',
  '∩': '\\cap',
  '∖': '\\setminus',
  '∅': '\\emptyset',
  '∀': '\\forall',
  '∃': '\\exists',
  '¬': '\\neg',
  '∧': '\\wedge',
  '∨': '\\vee',
  '⊤': '\\top',
  '⊥': '\\perp',
  '⊢': '\\vdash',
  '⊨': '\\models',
  '∥': '\\parallel',
  '∣': '\\mid',
  '→': '\\to',
  '←': '\\leftarrow',
  '↔': '\\leftrightarrow',
  '⇒': '\\Rightarrow',
  '⇐': '\\Leftarrow',
  '⇔': '\\Leftrightarrow',
  '↦': '\\mapsto',
  '⟶': '\\longrightarrow',
  '⟹': '\\Longrightarrow',
  '↑': '\\uparrow',
  '↓': '\\downarrow',
  '∞': '\\infty',
  '∂': '\\partial',
  '∇': '\\nabla',
  ℓ: '\\ell',
  ℏ: '\\hbar',
  ℜ: '\\Re',
  ℑ: '\\Im',
  '℘': '\\wp',
  ℵ: '\\aleph',
  '′': "'",
  '″': "''",
  '∠': '\\angle',
  '△': '\\triangle',
  '□': '\\square',
  '…': '\\ldots',
  '⋯': '\\cdots',
  '⋮': '\\vdots',
  '⋱': '\\ddots',
  '⟨': '\\langle',
  '⟩': '\\rangle',
  '〈': '\\langle',
  '〉': '\\rangle',
  '⌊': '\\lfloor',
  '⌋': '\\rfloor',
  '⌈': '\\lceil',
  '⌉': '\\rceil',
  '‖': '\\|',
  '{': '\\{',
  '}': '\\}',
  '#': '\\#',
  '%': '\\%',
  '&': '\\&',
  $: '\\$',
  _: '\\_',
  '~': '\\sim',
  '^': '\\hat{}',
  '∑': '\\sum',
  '∏': '\\prod',
  '∐': '\\coprod',
  '∫': '\\int',
  '∬': '\\iint',
  '∭': '\\iiint',
  '∮': '\\oint',
  '⋃': '\\bigcup',
  '⋂': '\\bigcap',
  '⨁': '\\bigoplus',
  '⨂': '\\bigotimes',
  '√': '\\sqrt{}',
  ℕ: '\\mathbb{N}',
  ℤ: '\\mathbb{Z}',
  ℚ: '\\mathbb{Q}',
  ℝ: '\\mathbb{R}',
  ℂ: '\\mathbb{C}',
  '\\': '\\backslash',
  '¯': '\\bar{}',
  '˙': '\\dot{}',
  '¨': '\\ddot{}',
  '˜': '\\tilde{}',
};

/** Large operators: limits go under and over them in display style. */
export const BIG_OPS = new Set(['∑', '∏', '∐', '∫', '∬', '∭', '∮', '⋃', '⋂', '⨁', '⨂']);

/** Function names typeset upright that LaTeX has a command for. */
export const FUNCTIONS = new Set([
  'sin',
  'cos',
  'tan',
  'cot',
  'sec',
  'csc',
  'arcsin',
  'arccos',
  'arctan',
  'sinh',
  'cosh',
  'tanh',
  'coth',
  'log',
  'ln',
  'lg',
  'exp',
  'lim',
  'liminf',
  'limsup',
  'max',
  'min',
  'sup',
  'inf',
  'arg',
  'det',
  'dim',
  'gcd',
  'deg',
  'hom',
  'ker',
  'Pr',
]);

/** Accents drawn as separate glyphs above a letter → their command. */
export const ACCENTS: Record<string, string> = {
  '^': '\\hat',
  ˆ: '\\hat',
  '\u0302': '\\hat',
  '~': '\\tilde',
  '˜': '\\tilde',
  '\u0303': '\\tilde',
  '¯': '\\bar',
  ˉ: '\\bar',
  '\u0304': '\\bar',
  '‾': '\\bar',
  '˙': '\\dot',
  '\u0307': '\\dot',
  '¨': '\\ddot',
  '\u0308': '\\ddot',
  '→': '\\vec',
  '⃗': '\\vec',
  ˇ: '\\check',
  '˘': '\\breve',
};

/** Opening and closing delimiters (they may be drawn big, centred on the math axis). */
export const OPEN_DELIMS = new Set(['(', '[', '{', '⟨', '〈', '⌊', '⌈', '|', '‖']);
export const CLOSE_DELIMS = new Set([')', ']', '}', '⟩', '〉', '⌋', '⌉', '|', '‖']);

const MATH_ALNUM_START = 0x1d400;

/** Letter of a Unicode mathematical alphanumeric symbol, and whether its style is bold. */
function mathAlnum(cp: number): { ch: string; bold: boolean; font?: string } | undefined {
  if (cp < MATH_ALNUM_START || cp > 0x1d7ff) return undefined;
  if (cp >= 0x1d7ce) {
    // Digits: five styles of ten.
    const k = (cp - 0x1d7ce) % 10;
    return { ch: String(k), bold: cp < 0x1d7d8 };
  }
  if (cp >= 0x1d6a8) {
    // Greek: styles of 58 (25 capitals + nabla + 25 small + partial and variants).
    const off = (cp - 0x1d6a8) % 58;
    const gstyle = Math.floor((cp - 0x1d6a8) / 58);
    const bold = gstyle === 0 || gstyle >= 2;
    const caps = 'ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡϴΣΤΥΦΧΨΩ∇αβγδεζηθικλμνξοπρςστυφχψω∂ϵϑϰϕϱϖ';
    const ch = [...caps][off];
    return ch ? { ch, bold } : undefined;
  }
  if (cp >= 0x1d6a4) return { ch: cp === 0x1d6a4 ? 'ı' : 'ȷ', bold: false };
  const off = (cp - MATH_ALNUM_START) % 52;
  const style = Math.floor((cp - MATH_ALNUM_START) / 52);
  const ch = off < 26 ? String.fromCharCode(65 + off) : String.fromCharCode(97 + off - 26);
  // Styles: bold, italic, bold italic, script, bold script, fraktur, double-struck, bold fraktur,
  // sans, sans bold, sans italic, sans bold italic, monospace.
  const font =
    style === 3 || style === 4
      ? 'mathcal'
      : style === 5 || style === 7
        ? 'mathfrak'
        : style === 6
          ? 'mathbb'
          : undefined;
  return { ch, bold: style === 0 || style === 2 || style === 9 || style === 11, font };
}

/** Letter-like symbols that the math alphanumeric block leaves to older blocks (ℎ for italic h). */
const HOLES: Record<string, string> = {
  ℎ: 'h',
  ℬ: 'B',
  ℰ: 'E',
  ℱ: 'F',
  ℋ: 'H',
  ℐ: 'I',
  ℒ: 'L',
  ℳ: 'M',
  ℛ: 'R',
  ℯ: 'e',
  ℊ: 'g',
  ℴ: 'o',
};

/** Plain character for a math letter (𝜔 → ω, ℎ → h), or the character itself. */
export function plainChar(ch: string): { ch: string; bold: boolean; font?: string } {
  const cp = ch.codePointAt(0)!;
  const m = mathAlnum(cp);
  if (m) return m;
  if (HOLES[ch]) return { ch: HOLES[ch]!, bold: false };
  return { ch, bold: false };
}

/** LaTeX for one character (after `plainChar`). */
export function latexOfChar(ch: string): string {
  if (GREEK[ch]) return GREEK[ch]!;
  if (SYMBOLS[ch] !== undefined) return SYMBOLS[ch]!;
  if (/^[A-Za-z0-9+\-=<>()[\]|/.,;:!?'*@]$/.test(ch)) return ch;
  const nfkc = ch.normalize('NFKC');
  if (nfkc !== ch && /^[A-Za-z0-9+\-=()]+$/.test(nfkc)) return nfkc;
  // Anything else: as text, which KaTeX renders for any character it has a font for.
  return /[\p{L}\p{N}]/u.test(ch) ? ch : `\\text{${ch}}`;
}

/** True for characters that only occur in math (operators, relations, Greek, math letters). */
export function isMathChar(ch: string): boolean {
  const cp = ch.codePointAt(0)!;
  if (cp >= MATH_ALNUM_START && cp <= 0x1d7ff) return true;
  if (GREEK[ch]) return true;
  if (
    ch === '•' ||
    ch === '…' ||
    ch === '·' ||
    ch === '–' ||
    ch === '†' ||
    ch === '~' ||
    ch === '#' ||
    ch === '%' ||
    ch === '&' ||
    ch === '$' ||
    ch === '_' ||
    ch === '{' ||
    ch === '}' ||
    ch === '\\' ||
    ch === '^' ||
    ch === '′' ||
    ch === '¯' ||
    ch === '˙' ||
    ch === '¨' ||
    ch === '˜'
  )
    return false;
  return (
    SYMBOLS[ch] !== undefined ||
    (cp >= 0x2200 && cp <= 0x22ff) ||
    (cp >= 0x27c0 && cp <= 0x27ef) ||
    (cp >= 0x2980 && cp <= 0x2aff)
  );
}
