/**
 * Office Math (OMML, `m:oMath`) → LaTeX, structure by structure: fractions, scripts, radicals,
 * n-ary operators, delimiters, functions, limits, accents, bars, matrices and equation arrays.
 * Symbols Word writes as Unicode (π, ∞, ≤) become their LaTeX commands, as Docling writes them.
 */
import { kid, kids, textOf, type XmlElement } from './xml';

const SYMBOLS: Record<string, string> = {
  α: '\\alpha',
  β: '\\beta',
  γ: '\\gamma',
  δ: '\\delta',
  ε: '\\epsilon',
  ϵ: '\\epsilon',
  ζ: '\\zeta',
  η: '\\eta',
  θ: '\\theta',
  ι: '\\iota',
  κ: '\\kappa',
  λ: '\\lambda',
  μ: '\\mu',
  ν: '\\nu',
  ξ: '\\xi',
  π: '\\pi',
  ρ: '\\rho',
  σ: '\\sigma',
  τ: '\\tau',
  υ: '\\upsilon',
  φ: '\\phi',
  ϕ: '\\phi',
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
  Φ: '\\Phi',
  Ψ: '\\Psi',
  Ω: '\\Omega',
  '∞': '\\infty',
  '×': '\\times',
  '÷': '\\div',
  '±': '\\pm',
  '∓': '\\mp',
  '≤': '\\leq',
  '≥': '\\geq',
  '≠': '\\neq',
  '≈': '\\approx',
  '≡': '\\equiv',
  '∈': '\\in',
  '∉': '\\notin',
  '⊂': '\\subset',
  '⊆': '\\subseteq',
  '∪': '\\cup',
  '∩': '\\cap',
  '→': '\\rightarrow',
  '←': '\\leftarrow',
  '⇒': '\\Rightarrow',
  '⇔': '\\Leftrightarrow',
  '∂': '\\partial',
  '∇': '\\nabla',
  '⋅': '\\cdot',
  '·': '\\cdot',
  '…': '\\ldots',
  '⋯': '\\cdots',
  '∀': '\\forall',
  '∃': '\\exists',
  '¬': '\\neg',
  '∧': '\\wedge',
  '∨': '\\vee',
  '∘': '\\circ',
  '′': "'",
  '−': '-',
  '∗': '*',
};

const NARY: Record<string, string> = {
  '∑': '\\sum',
  '∏': '\\prod',
  '∐': '\\coprod',
  '∫': '\\int',
  '∬': '\\iint',
  '∭': '\\iiint',
  '∮': '\\oint',
  '⋃': '\\bigcup',
  '⋂': '\\bigcap',
  '⋁': '\\bigvee',
  '⋀': '\\bigwedge',
};

const ACCENTS: Record<string, string> = {
  '\u0302': '\\hat',
  '\u0303': '\\tilde',
  '\u0307': '\\dot',
  '\u0308': '\\ddot',
  '\u20d7': '\\vec',
  '\u0304': '\\bar',
  '\u0301': '\\acute',
  '\u0300': '\\grave',
  '\u030c': '\\check',
  '\u0306': '\\breve',
};

const FUNCTIONS = new Set([
  'sin',
  'cos',
  'tan',
  'cot',
  'sec',
  'csc',
  'log',
  'ln',
  'exp',
  'lim',
  'max',
  'min',
  'sinh',
  'cosh',
  'tanh',
  'arcsin',
  'arccos',
  'arctan',
  'det',
  'sup',
  'inf',
  'gcd',
]);

function escapeText(s: string): string {
  let out = '';
  for (const ch of s) {
    const sym = SYMBOLS[ch] ?? NARY[ch];
    if (sym) out += ` ${sym} `;
    else if ('#$%&_{}'.includes(ch)) out += '\\' + ch;
    else if (ch === '\\') out += '\\backslash ';
    else out += ch;
  }
  return out;
}

function val(el: XmlElement | undefined, name: string): string | undefined {
  return kid(el, name)?.attrs['m:val'];
}

/** LaTeX of an argument element (`m:e`, `m:num`, …): its children in order. */
function arg(el: XmlElement | undefined): string {
  if (!el) return '';
  return el.children.map((c) => (typeof c === 'string' ? '' : node(c))).join('');
}

function group(s: string): string {
  return `{${s.trim()}}`;
}

function node(el: XmlElement): string {
  switch (el.name) {
    case 'm:r': {
      const t = kids(el, 'm:t').map(textOf).join('');
      const plain = kid(kid(el, 'm:rPr'), 'm:nor') !== undefined;
      if (plain) return `\\text{${t}}`;
      return FUNCTIONS.has(t.trim()) ? `\\${t.trim()}` : escapeText(t);
    }
    case 'm:f': {
      const type = val(kid(el, 'm:fPr'), 'm:type');
      const num = arg(kid(el, 'm:num'));
      const den = arg(kid(el, 'm:den'));
      if (type === 'lin') return `${group(num)}/${group(den)}`;
      if (type === 'noBar') return `\\genfrac{}{}{0pt}{}${group(num)}${group(den)}`;
      return `\\frac${group(num)}${group(den)}`;
    }
    case 'm:sSup':
      return `${arg(kid(el, 'm:e'))}^${group(arg(kid(el, 'm:sup')))}`;
    case 'm:sSub':
      return `${arg(kid(el, 'm:e'))}_${group(arg(kid(el, 'm:sub')))}`;
    case 'm:sSubSup':
      return `${arg(kid(el, 'm:e'))}_${group(arg(kid(el, 'm:sub')))}^${group(arg(kid(el, 'm:sup')))}`;
    case 'm:sPre':
      return `{}_${group(arg(kid(el, 'm:sub')))}^${group(arg(kid(el, 'm:sup')))}${arg(kid(el, 'm:e'))}`;
    case 'm:rad': {
      const hide = val(kid(el, 'm:radPr'), 'm:degHide');
      const deg = arg(kid(el, 'm:deg')).trim();
      const body = group(arg(kid(el, 'm:e')));
      return hide === '1' || hide === 'on' || !deg ? `\\sqrt${body}` : `\\sqrt[${deg}]${body}`;
    }
    case 'm:nary': {
      const pr = kid(el, 'm:naryPr');
      const chr = val(pr, 'm:chr') ?? '∫';
      const op = NARY[chr] ?? escapeText(chr);
      const sub = arg(kid(el, 'm:sub')).trim();
      const sup = arg(kid(el, 'm:sup')).trim();
      return `${op}${sub ? `_${group(sub)}` : ''}${sup ? `^${group(sup)}` : ''}${arg(kid(el, 'm:e'))}`;
    }
    case 'm:d': {
      const pr = kid(el, 'm:dPr');
      const beg = val(pr, 'm:begChr') ?? '(';
      const end = val(pr, 'm:endChr') ?? ')';
      const sep = val(pr, 'm:sepChr') ?? '|';
      const inner = kids(el, 'm:e')
        .map(arg)
        .join(sep === '|' ? ' \\mid ' : sep);
      const delim = (c: string, fallback: string) =>
        c === ''
          ? '.'
          : c === '{'
            ? '\\{'
            : c === '}'
              ? '\\}'
              : c === '⟨'
                ? '\\langle'
                : c === '⟩'
                  ? '\\rangle'
                  : c || fallback;
      return `\\left${delim(beg, '(')}${inner}\\right${delim(end, ')')}`;
    }
    case 'm:func': {
      const name = arg(kid(el, 'm:fName')).trim();
      return `${name}${arg(kid(el, 'm:e'))}`;
    }
    case 'm:limLow':
      return `${arg(kid(el, 'm:e'))}_${group(arg(kid(el, 'm:lim')))}`;
    case 'm:limUpp':
      return `${arg(kid(el, 'm:e'))}^${group(arg(kid(el, 'm:lim')))}`;
    case 'm:acc': {
      const chr = val(kid(el, 'm:accPr'), 'm:chr') ?? '\u0302';
      return `${ACCENTS[chr] ?? '\\hat'}${group(arg(kid(el, 'm:e')))}`;
    }
    default:
      return decoration(el);
  }
}

/** Bars, braces, arrays, matrices and the containers. */
function decoration(el: XmlElement): string {
  switch (el.name) {
    case 'm:bar': {
      const pos = val(kid(el, 'm:barPr'), 'm:pos');
      return `${pos === 'bot' ? '\\underline' : '\\overline'}${group(arg(kid(el, 'm:e')))}`;
    }
    case 'm:groupChr': {
      const pos = val(kid(el, 'm:groupChrPr'), 'm:pos');
      return `${pos === 'top' ? '\\overbrace' : '\\underbrace'}${group(arg(kid(el, 'm:e')))}`;
    }
    case 'm:eqArr':
      if (kids(el, 'm:e').length === 1) return arg(kid(el, 'm:e'));
      return `\\begin{array}{l}${kids(el, 'm:e').map(arg).join(' \\\\ ')}\\end{array}`;
    case 'm:m':
      return `\\begin{matrix}${kids(el, 'm:mr')
        .map((r) => kids(r, 'm:e').map(arg).join(' & '))
        .join(' \\\\ ')}\\end{matrix}`;
    case 'm:box':
    case 'm:borderBox':
    case 'm:phant':
    case 'm:e':
    case 'm:oMath':
      return arg(el);
    case 'm:oMathPara':
      return kids(el, 'm:oMath').map(arg).join(' \\\\ ');
    default:
      if (el.name.endsWith('Pr') || el.name === 'w:rPr' || el.name === 'm:ctrlPr') return '';
      return arg(el);
  }
}

/** The LaTeX of an `m:oMath` or `m:oMathPara` element, spaces tidied. */
export function ommlToLatex(el: XmlElement): string {
  return node(el).replace(/\s+/g, ' ').trim();
}
