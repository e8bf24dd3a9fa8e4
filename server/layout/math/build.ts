/**
 * Glyphs and rules of one formula → LaTeX, from geometry alone (the approach of faithful
 * formula recognition from born-digital PDFs: the glyphs are exact, only their arrangement has
 * to be read back). Order of reading:
 *   1. radicals: a √ glyph with a rule starting at its right edge covers the radicand;
 *   2. fraction bars: rules with atoms above and below (narrowest first, so nested fractions
 *      become atoms of the outer one); a rule with atoms only just below is an overline;
 *   3. large operators (∑ ∏ ∫ …) take the atoms right above and below them as limits;
 *   4. accents (ˆ ˜ ¯ ˙ → over a letter) join the letter under them;
 *   5. what is left is read as rows: several baselines at the main size are lines (aligned
 *      equations) or, between big delimiters, a matrix; on one row, atoms on the main baseline
 *      are bases and smaller raised or lowered atoms their super- and subscripts;
 *   6. letters of one run form words: known function names become commands (\sin, \log),
 *      longer words \mathrm{…}; spaces are dropped, LaTeX spacing is the renderer's job.
 */
import type { Rule } from '../../model/content';
import type { Glyph } from './glyphs';
import { ACCENTS, BIG_OPS, CLOSE_DELIMS, FUNCTIONS, OPEN_DELIMS, latexOfChar, plainChar } from './symbols';

interface Atom {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
  base: number;
  size: number;
  tex: string;
  /** Single glyph atoms keep their character (words, delimiters, operators). */
  ch?: string;
  font?: string;
  italic?: boolean;
  run?: number;
  sp?: boolean;
  mathFont?: boolean;
  hang?: boolean;
  spaced?: boolean;
  bigop?: boolean;
  /** Limits already attached (written with \limits-free `_{}^{}` after the operator). */
  limits?: boolean;
  /** A word that takes limits (lim, max). */
  limop?: boolean;
}

/**
 * A letter in a bold text font is `\mathbf`: TeX sets `\mathbf{q}` in the text family's bold
 * (CMBX10, TeXGyreTermesX-Bold), not in a math font, so the font's name is all that says so.
 */
const BOLD_FONT_RE = /^([A-Z]{6}\+)?(cmbx\d|cmb\d|[^,]*[-,]?(bold|semibold|demi|heavy|black)(?!italic|oblique|it\b))/i;

function glyphAtom(g: Glyph): Atom {
  const p = plainChar(g.ch);
  let tex = latexOfChar(p.ch);
  if (p.font && /^[A-Za-z]$/.test(p.ch)) tex = `\\${p.font}{${p.ch}}`;
  else if ((p.bold && /^[A-Za-z0-9]$/.test(p.ch)) || (BOLD_FONT_RE.test(g.font) && /^[A-Za-z]$/.test(p.ch)))
    tex = `\\mathbf{${p.ch}}`;
  else if (p.bold && tex.startsWith('\\')) tex = `\\boldsymbol{${tex}}`;
  // Unicode math letters are variables whatever the font's name says (𝑑𝑥 is d times x).
  const italic = g.italic || (g.ch.codePointAt(0)! >= 0x1d400 && g.ch.codePointAt(0)! <= 0x1d7ff);
  return {
    x0: g.x0,
    x1: g.x1,
    y0: g.y0,
    y1: g.y1,
    base: g.base,
    size: g.size,
    tex,
    ch: p.ch,
    font: g.font,
    italic,
    run: g.run,
    sp: g.sp,
    mathFont: g.mathFont,
    hang: g.hang,
    spaced: g.spaced,
  };
}

const cx = (a: { x0: number; x1: number }) => (a.x0 + a.x1) / 2;

function union(list: Atom[]): { x0: number; x1: number; y0: number; y1: number } {
  return {
    x0: Math.min(...list.map((a) => a.x0)),
    x1: Math.max(...list.map((a) => a.x1)),
    y0: Math.min(...list.map((a) => a.y0)),
    y1: Math.max(...list.map((a) => a.y1)),
  };
}

/**
 * The size of the formula's main line: the largest size that a fair share of the atoms are set
 * in (scripts are smaller, and may outnumber their bases); big operators and delimiters aside.
 */
function mainSize(atoms: Atom[]): number {
  const pool = atoms.filter(
    // A big operator counts as one before limits() has marked it (inside a fraction's parts).
    (a) =>
      !a.bigop &&
      !a.hang &&
      !(a.ch !== undefined && (OPEN_DELIMS.has(a.ch) || CLOSE_DELIMS.has(a.ch) || BIG_OPS.has(a.ch))),
  );
  const list = pool.length ? pool : atoms;
  const count = new Map<number, number>();
  for (const a of list) {
    const k = Math.round(a.size * 2) / 2;
    count.set(k, (count.get(k) ?? 0) + 1);
  }
  let best = 0;
  for (const [s, c] of count) if (c >= Math.max(1, list.length * 0.2) && s > best) best = s;
  return best || Math.max(...list.map((a) => a.size));
}

function isBigDelim(a: Atom, size: number): boolean {
  return a.ch !== undefined && (OPEN_DELIMS.has(a.ch) || CLOSE_DELIMS.has(a.ch)) && a.size > size * 1.25;
}

/** Main baseline: the baseline holding most main-size atoms. */
function mainBase(atoms: Atom[], size: number): number {
  const cands = atoms.filter((a) => Math.abs(a.size - size) <= size * 0.12 && !isBigDelim(a, size) && !a.bigop);
  const pool = cands.length ? cands : atoms;
  let best = pool[0]!.base;
  let n = -1;
  for (const a of pool) {
    const c = pool.filter((b) => Math.abs(b.base - a.base) <= size * 0.15).length;
    if (c > n) [best, n] = [a.base, c];
  }
  return best;
}

export function buildLatex(glyphs: Glyph[], rules: Rule[]): string {
  if (glyphs.length === 0) return '';
  let atoms = glyphs.map(glyphAtom);
  // TeX's \| and \parallel are one glyph (cmsy's, read as ∥): in pairs it is a norm, ‖v‖.
  if (atoms.filter((a) => a.ch === '∥').length >= 2) for (const a of atoms) if (a.ch === '∥') a.tex = '\\|';
  placeHanging(atoms);
  atoms = limitWords(atoms);
  const size0 = mainSize(atoms);
  const bars = rules
    .filter((r) => r.y1 - r.y0 < Math.max(1.6, size0 * 0.15) && r.x1 - r.x0 >= 2)
    .sort((a, b) => a.x1 - a.x0 - (b.x1 - b.x0));
  const used = new Set<Rule>();
  atoms = radicals(atoms, bars, used);
  atoms = fractions(atoms, bars, used);
  atoms = limits(atoms);
  atoms = accents(atoms);
  return tidy(layout(atoms));
}

/**
 * Extension-font glyphs (big ∑, √, delimiters) hang from their baseline and are centred on the
 * math axis of what stands beside them: their box is rebuilt from that, and their size becomes
 * their drawn height so that they read as big.
 */
function placeHanging(atoms: Atom[]): void {
  const plain = atoms.filter((a) => !a.hang);
  const hang = atoms.filter((a) => a.hang).sort((a, b) => a.x0 - b.x0);
  const done = new Set<Atom>();
  const set = (a: Atom, axis: number, base?: number) => {
    const top = a.base - a.size * 0.05;
    const h = Math.max(a.size * 0.8, 2 * (axis - top));
    a.y0 = top;
    a.y1 = top + h;
    if (base !== undefined) a.base = base;
    a.size = Math.max(a.size, h * 0.85);
    done.add(a);
  };
  // Delimiter pairs: centred on what they enclose (a matrix, a tall fraction).
  for (const a of hang) {
    if (done.has(a) || a.ch === undefined || !OPEN_DELIMS.has(a.ch)) continue;
    const close = hang.find(
      (b) =>
        b !== a &&
        !done.has(b) &&
        b.x0 > a.x1 - 0.5 &&
        b.ch !== undefined &&
        CLOSE_DELIMS.has(b.ch) &&
        Math.abs(b.base - a.base) < 1,
    );
    const inner = plain.filter(
      (b) =>
        b.x0 >= a.x1 - 1 &&
        (!close || b.x1 <= close.x0 + 1) &&
        b.base > a.base - a.size &&
        b.base < a.base + a.size * 6,
    );
    if (!inner.length) continue;
    const axis = (Math.min(...inner.map((b) => b.y0)) + Math.max(...inner.map((b) => b.y1))) / 2;
    const left = plain
      .filter((b) => b.x1 <= a.x0 + 1 && Math.abs(b.base - axis - b.size * 0.25) < b.size)
      .sort((p, q) => q.x1 - p.x1)[0];
    set(a, axis, left?.base ?? axis + mainSize(inner) * 0.25);
    if (close) set(close, axis, a.base);
  }
  for (const a of hang) {
    if (done.has(a) || a.ch === undefined || !BIG_OPS.has(a.ch)) continue;
    // cmex's big operators: display ∑ is 1.4 em tall, display ∫ 2.2 em (text styles 1.0 and
    // 1.1 em, told apart by the width), hanging from the baseline; centred on the math axis.
    const wide = (a.x1 - a.x0) / a.size;
    const integral = a.ch === '∫' || a.ch === '∮' || a.ch === '∬' || a.ch === '∭';
    const h = integral ? (wide > 0.5 ? 2.22 : 1.11) * a.size : (wide > 1.25 ? 1.4 : 1.0) * a.size;
    const top = a.base - a.size * 0.05;
    const size = a.size;
    a.y0 = top;
    a.y1 = top + h;
    a.base = top + h / 2 + size * 0.25;
    a.size = Math.max(size, h * 0.85);
    done.add(a);
  }
  for (const a of hang) {
    if (done.has(a)) continue;
    // Operators sit on the axis of the line they belong to: the atom before them, else after.
    const range = (b: Atom) => b.base > a.base - a.size * 0.5 && b.base < a.base + a.size * 3 && b.size >= a.size * 0.7;
    const before =
      a.ch === '√'
        ? undefined
        : plain.filter((b) => b.x1 <= a.x0 + 1 && a.x0 - b.x1 < a.size * 2 && range(b)).sort((p, q) => q.x1 - p.x1)[0];
    const after = plain.filter((b) => b.x0 >= a.x1 - 1 && range(b)).sort((p, q) => p.x0 - q.x0)[0];
    const n = before ?? after;
    set(a, n ? n.base - n.size * 0.25 : a.base + a.size * 0.5, n?.base);
  }
}

/** Words that take limits under them in display style (lim, max…): one atom each. */
function limitWords(atoms: Atom[]): Atom[] {
  const WORDS = /^(lim|liminf|limsup|max|min|sup|inf|argmax|argmin|det|Pr)$/;
  const byRun = new Map<number, Atom[]>();
  for (const a of atoms)
    if (a.run !== undefined && a.ch !== undefined && /^\p{L}$/u.test(a.ch))
      byRun.set(a.run, [...(byRun.get(a.run) ?? []), a]);
  for (const run of byRun.values()) {
    run.sort((a, b) => a.x0 - b.x0);
    const word = run.map((a) => a.ch).join('');
    if (!WORDS.test(word) || run.some((a) => a.italic)) continue;
    const u = union(run);
    const tex = word.startsWith('arg') ? `\\operatorname*{${word}}` : `\\${word}`;
    atoms = atoms.filter((a) => !run.includes(a));
    atoms.push({ ...u, base: run[0]!.base, size: run[0]!.size, tex, limop: true, run: run[0]!.run });
  }
  return atoms;
}

function radicals(atoms: Atom[], bars: Rule[], used: Set<Rule>): Atom[] {
  // Innermost first: the radical whose bar is shortest.
  const roots = atoms
    .filter((a) => a.ch === '√')
    .sort((a, b) => a.x0 - b.x0)
    .reverse();
  for (const r of roots) {
    if (!atoms.includes(r)) continue;
    const bar = bars.find(
      (b) =>
        !used.has(b) &&
        Math.abs(b.x0 - r.x1) < r.size * 0.45 + 1 &&
        b.y0 >= r.y0 - r.size * 0.5 &&
        // An OpenType √'s box is the font's ascent: its bar can sit as low as its baseline.
        b.y0 <= Math.max(r.y0 + r.size * 0.6, r.base + r.size * 0.1),
    );
    let inside: Atom[];
    if (bar) {
      used.add(bar);
      inside = atoms.filter(
        (a) => a !== r && cx(a) > bar.x0 && cx(a) < bar.x1 + 0.5 && a.base > bar.y1 && a.y0 < r.y1 + r.size * 0.2,
      );
    } else {
      // A √ set as text (no bar): it takes the run right after it.
      const next = atoms.filter((a) => a !== r && a.x0 >= r.x1 - 1).sort((a, b) => a.x0 - b.x0);
      inside = [];
      for (const a of next) {
        const prev = inside[inside.length - 1] ?? r;
        if (a.x0 - prev.x1 > r.size * 0.25 || (inside.length > 0 && a.ch !== undefined && !/[\p{L}\p{N}]/u.test(a.ch)))
          break;
        inside.push(a);
      }
    }
    // An index sits small, up and left of the radical sign.
    // An index sits small in the crook of the sign: smaller than the radicand, not above the sign.
    const inner = inside.length ? mainSize(inside) : r.size;
    // The sign's drawn extent: from its bar down to the radicand's baseline at least (CMSY's √
    // hangs below its baseline, so the run's box sits too high).
    const top = bar ? bar.y0 : r.y0;
    const bottom = Math.max(r.y1, ...inside.map((a) => a.base));
    const index = atoms.filter(
      (a) =>
        a !== r &&
        !inside.includes(a) &&
        a.size < Math.min(r.size, inner) * 0.8 &&
        a.x0 < cx(r) &&
        a.x1 <= r.x1 &&
        a.x1 >= r.x0 - r.size * 0.6 &&
        a.base < (top + bottom) / 2 &&
        a.base > top - r.size * 0.3,
    );
    const body = layout(inside);
    const tex = index.length ? `\\sqrt[${layout(index)}]{${body}}` : `\\sqrt{${body}}`;
    const box = union([r, ...inside, ...index]);
    const sz = inside.length ? mainSize(inside) : r.size;
    const base = inside.length ? mainBase(inside, sz) : r.base;
    atoms = atoms.filter((a) => a !== r && !inside.includes(a) && !index.includes(a));
    atoms.push({ ...box, x1: bar ? Math.max(box.x1, bar.x1) : box.x1, base, size: sz, tex });
  }
  return atoms;
}

function fractions(atoms: Atom[], bars: Rule[], used: Set<Rule>): Atom[] {
  for (const bar of bars) {
    if (used.has(bar)) continue;
    const y = (bar.y0 + bar.y1) / 2;
    const within = (a: Atom) => a.x0 >= bar.x0 - 1.5 && a.x1 <= bar.x1 + 1.5;
    const reach = mainSize(atoms) * 2.6;
    // Above the bar: the box's bottom, or for a glyph with a deep box (OpenSymbol's π) its baseline.
    const num = atoms.filter(
      (a) =>
        within(a) &&
        (a.y1 <= y + 1.2 || (a.base < y - 0.3 && a.y0 < y - a.size * 0.5)) &&
        a.base < y &&
        a.base > y - reach &&
        !a.bigop,
    );
    const den = atoms.filter(
      (a) => within(a) && a.base > y + 0.5 && a.y0 < y + reach * 0.8 && !num.includes(a) && !a.bigop,
    );
    // Keep only what touches the bar: the nearest line above and below, and what joins it.
    const near = (list: Atom[], above: boolean) => {
      if (!list.length) return list;
      const d = (a: Atom) => (above ? y - a.y1 : a.y0 - y);
      const first = Math.min(...list.map(d));
      // A big operator's limits hang below it: its size, not the line's, is the reach.
      const ops = list.filter((a) => a.ch !== undefined && BIG_OPS.has(a.ch)).map((a) => a.size);
      return list.filter((a) => d(a) <= first + Math.max(mainSize(list), ...ops) * 1.3);
    };
    const n = near(num, true);
    const dn = near(den, false);
    if (n.length && dn.length) {
      used.add(bar);
      const size = Math.max(mainSize(n), mainSize(dn));
      atoms = atoms.filter((a) => !n.includes(a) && !dn.includes(a));
      atoms.push({
        x0: bar.x0,
        x1: bar.x1,
        y0: Math.min(...n.map((a) => a.y0)),
        y1: Math.max(...dn.map((a) => a.y1)),
        base: y + size * 0.25,
        size,
        tex: `\\frac{${layout(n)}}{${layout(dn)}}`,
      });
    } else if (!n.length && dn.length && Math.min(...dn.map((a) => a.y0)) - y < mainSize(dn) * 0.6) {
      // A bar just over atoms with nothing above it: an overline (a single letter: a bar accent).
      const under = dn.filter((a) => a.base - y < a.size * 1.4);
      if (!under.length) continue;
      used.add(bar);
      atoms = atoms.filter((a) => !under.includes(a));
      const body = layout(under);
      const tex = under.length === 1 && under[0]!.ch ? `\\bar{${body}}` : `\\overline{${body}}`;
      const u = union(under);
      atoms.push({ ...u, y0: bar.y0, base: mainBase(under, mainSize(under)), size: mainSize(under), tex });
    }
  }
  return atoms;
}

function limits(atoms: Atom[]): Atom[] {
  for (const op of atoms.filter((a) => (a.ch !== undefined && BIG_OPS.has(a.ch)) || a.limop)) {
    const size = mainSize(atoms.filter((a) => a !== op));
    if (!op.limop) op.bigop = true;
    if (op.ch === '∫' || op.ch === '∮' || op.ch === '∬' || op.ch === '∭') continue; // limits as scripts
    const overlaps = (a: Atom) => a.x1 > op.x0 - 1 && a.x0 < op.x1 + 1;
    const seedAbove = atoms.filter(
      (a) =>
        a !== op && overlaps(a) && a.base < op.y0 + op.size * 0.25 && a.y1 > op.y0 - size * 1.6 && a.size < op.size,
    );
    const seedBelow = atoms.filter(
      (a) =>
        a !== op &&
        overlaps(a) &&
        a.y0 > op.y1 - op.size * 0.3 &&
        a.y0 < op.y1 + size * 1.2 &&
        a.size < op.size &&
        !seedAbove.includes(a),
    );
    const grow = (seed: Atom[]) => {
      const got = [...seed];
      let added = true;
      while (added && got.length) {
        added = false;
        for (const a of atoms) {
          if (a === op || got.includes(a)) continue;
          if (
            // Measured by the larger of the two: a prime (5 pt in a 7 pt limit) sits higher.
            got.some((g) => {
              const s = Math.max(g.size, a.size);
              return (
                Math.abs(g.base - a.base) < s * 0.3 &&
                (Math.abs(a.x0 - g.x1) < s * 0.4 || Math.abs(g.x0 - a.x1) < s * 0.4)
              );
            }) &&
            a.size <= size
          ) {
            got.push(a);
            added = true;
          }
        }
      }
      return got;
    };
    const above = grow(seedAbove);
    const below = grow(seedBelow.filter((a) => !above.includes(a))).filter((a) => !above.includes(a));
    if (!above.length && !below.length) continue;
    atoms = atoms.filter((a) => !above.includes(a) && !below.includes(a));
    op.tex = `${op.tex}${below.length ? `_{${layout(below)}}` : ''}${above.length ? `^{${layout(above)}}` : ''}`;
    op.limits = true;
    const u = union([op, ...above, ...below]);
    Object.assign(op, { x0: u.x0, x1: u.x1, y0: u.y0, y1: u.y1 });
  }
  return atoms;
}

function accents(atoms: Atom[]): Atom[] {
  for (const acc of atoms.filter((a) => a.ch !== undefined && ACCENTS[a.ch] !== undefined)) {
    // TeX draws the accent glyph high in its own box: same baseline as the letter, or raised.
    const base = atoms.find(
      (b) =>
        b !== acc &&
        b.ch !== undefined &&
        /[\p{L}\p{N}]/u.test(b.ch) &&
        cx(acc) > b.x0 - 1 &&
        cx(acc) < b.x1 + 1 &&
        acc.base <= b.base + b.size * 0.1 &&
        b.base - acc.base < b.size * 1.2,
    );
    if (!base) continue;
    base.tex = `${ACCENTS[acc.ch!]}{${base.tex}}`;
    base.ch = undefined;
    atoms = atoms.filter((a) => a !== acc);
  }
  return atoms;
}

/** Clusters of main-size baselines far enough apart to be separate lines. */
function lineBaselines(atoms: Atom[], size: number): number[] {
  const bases = atoms
    .filter(
      (a) => Math.abs(a.size - size) <= size * 0.12 && !a.bigop && !isBigDelim(a, size) && !a.tex.startsWith('\\frac'),
    )
    .map((a) => a.base)
    .sort((a, b) => a - b);
  const out: number[] = [];
  for (const b of bases) if (!out.length || b - out[out.length - 1]! > size * 1.05) out.push(b);
  // A line needs more than a stray atom: at least two atoms on it or a relation.
  return out.filter((b) => atoms.filter((a) => Math.abs(a.base - b) <= size * 0.3).length >= 1);
}

function layout(atoms: Atom[]): string {
  if (atoms.length === 0) return '';
  const size = mainSize(atoms);
  const lines = lineBaselines(atoms, size);
  if (lines.length >= 2) return multiline(atoms, lines, size);
  return row(atoms);
}

/** Atoms on several lines: a matrix inside big delimiters, cases after a lone brace, or aligned lines. */
function multiline(atoms: Atom[], lines: number[], size: number): string {
  const sorted = [...atoms].sort((a, b) => a.x0 - b.x0);
  const open = sorted.find(
    (a) =>
      isBigDelim(a, size) &&
      OPEN_DELIMS.has(a.ch!) &&
      a.y0 <= Math.min(...lines) - size * 0.5 &&
      a.y1 >= Math.max(...lines),
  );
  if (open) {
    const close = sorted.find(
      (a) =>
        a !== open &&
        isBigDelim(a, size) &&
        CLOSE_DELIMS.has(a.ch!) &&
        a.x0 > open.x1 &&
        Math.abs(a.size - open.size) < open.size * 0.3,
    );
    const inner = sorted.filter((a) => a.x0 >= open.x1 - 0.5 && (!close || a.x1 <= close.x0 + 0.5) && a !== close);
    // By centre: a glyph's box may overlap the big delimiter's (LibreOffice Math's "=" before "(").
    // Before and after are laid out again: a second binomial or matrix in the same formula.
    const before = sorted.filter((a) => a !== open && !inner.includes(a) && cx(a) < cx(open));
    const after = close ? sorted.filter((a) => a !== close && !inner.includes(a) && cx(a) > cx(close)) : [];
    const grid = cells(inner, lines, size);
    // Two rows of one cell each in parentheses, no bar: a binomial coefficient.
    if (open.ch === '(' && close?.ch === ')' && !grid.includes('&') && grid.split(' \\\\ ').length === 2) {
      const [n, k] = grid.split(' \\\\ ');
      return join([layout(before), `\\binom{${n}}{${k}}`, layout(after)]);
    }
    const env =
      !close && open.ch === '{'
        ? 'cases'
        : open.ch === '(' && close?.ch === ')'
          ? 'pmatrix'
          : open.ch === '[' && close?.ch === ']'
            ? 'bmatrix'
            : open.ch === '|' && close?.ch === '|'
              ? 'vmatrix'
              : open.ch === '{' && close?.ch === '}'
                ? 'Bmatrix'
                : '';
    const body = `\\begin{${env || 'matrix'}}${grid}\\end{${env || 'matrix'}}`;
    const wrapped = env ? body : `\\left${delimTex(open)}${body}\\right${close ? delimTex(close) : '.'}`;
    return join([layout(before), wrapped, layout(after)]);
  }
  // Lines of their own: aligned at the first relation of each line.
  const parts = splitLines(atoms, lines, size).map((l) => {
    const s = [...l].sort((a, b) => a.x0 - b.x0);
    const rel = s.findIndex((a) => a.ch !== undefined && /^[=<>≤≥≈≡∼≠→⇒⇔]$/.test(a.ch));
    if (rel < 0) return row(s);
    return `${row(s.slice(0, rel))} &${row(s.slice(rel))}`;
  });
  const body = parts.join(' \\\\ ');
  // Aligned at every depth: a nested block's lines need the environment as much as the top one's.
  return `\\begin{aligned}${body}\\end{aligned}`;
}

function delimTex(a: Atom): string {
  if (a.ch === '{') return '\\{';
  if (a.ch === '}') return '\\}';
  if (a.ch === '‖') return '\\|';
  return a.tex.startsWith('\\') ? a.tex : (a.ch ?? '.');
}

function splitLines(atoms: Atom[], lines: number[], size: number): Atom[][] {
  const out: Atom[][] = lines.map(() => []);
  for (const a of atoms) {
    // Scripts and fractions belong to the line whose baseline is nearest their centre.
    const c = a.tex.startsWith('\\frac')
      ? a.base
      : Math.abs(a.size - size) <= size * 0.12
        ? a.base
        : (a.y0 + a.y1) / 2 + size * 0.25;
    let k = 0;
    for (let i = 1; i < lines.length; i++) if (Math.abs(lines[i]! - c) < Math.abs(lines[k]! - c)) k = i;
    out[k]!.push(a);
  }
  return out;
}

/** Matrix cells: rows by baseline, columns by white gaps through all rows. */
function cells(inner: Atom[], lines: number[], size: number): string {
  const rows = splitLines(inner, lines, size).filter((r) => r.length);
  const iv = inner.map((a) => [a.x0, a.x1] as [number, number]).sort((a, b) => a[0] - b[0]);
  const cuts: number[] = [];
  let end = iv[0]?.[1] ?? 0;
  for (const [s, e] of iv.slice(1)) {
    if (s - end > size * 0.6) cuts.push((s + end) / 2);
    end = Math.max(end, e);
  }
  return rows
    .map((r) => {
      const cols: Atom[][] = Array.from({ length: cuts.length + 1 }, () => []);
      for (const a of r) cols[cuts.filter((c) => cx(a) > c).length]!.push(a);
      return cols.map((c) => row(c)).join(' & ');
    })
    .join(' \\\\ ');
}

/** One line of atoms: bases on the main baseline, scripts attached to the base before them. */
function row(atoms: Atom[]): string {
  if (atoms.length === 0) return '';
  const size = mainSize(atoms);
  const base = mainBase(atoms, size);
  const sorted = [...atoms].sort((a, b) => a.x0 - b.x0 || a.base - b.base);
  const onBase = (a: Atom) =>
    a.bigop ||
    isBigDelim(a, size) ||
    // Script sizes run up to 0.81 of the text (newtx: 7.27 on 8.97), and a lone subscript
    // drops only 0.15 em: near the baseline, a glyph that small is still a script.
    (Math.abs(a.base - base) <= size * 0.18 && a.size >= size * 0.86) ||
    (a.tex.startsWith('\\frac') && Math.abs(a.base - base) <= size * 0.6);
  type Item = { atom: Atom; sup: Atom[]; sub: Atom[] };
  const items: Item[] = [];
  for (const a of sorted) {
    const last = items[items.length - 1];
    // Unicode super- and subscript characters ("mc²", "x₁" typed as text) are scripts already.
    const script = a.ch !== undefined ? UNICODE_SCRIPTS.get(a.ch) : undefined;
    if (script && last) {
      const plain: Atom = { ...a, ch: script.ch, tex: latexOfChar(script.ch) };
      (script.up ? last.sup : last.sub).push(plain);
      continue;
    }
    if (onBase(a) || !last) {
      items.push({ atom: a, sup: [], sub: [] });
      continue;
    }
    // Raised: a superscript; lowered: a subscript.
    const mid = (a.y0 + a.y1) / 2;
    const up = a.base < base - size * 0.12 || (a.base <= base + 0.5 && mid < base - size * 0.5);
    (up ? last.sup : last.sub).push(a);
  }
  // A formula typed in the text font (no italic, no math font: Writer or Word without an
  // equation editor) has upright variables: a short run like "mc" is a product, not a word.
  const typedAsText = atoms.every((a) => !a.italic && !a.mathFont);
  // Words: letters of one run, side by side, with no scripts inside the run.
  const parts: string[] = [];
  for (let i = 0; i < items.length; i++) {
    const it = items[i]!;
    const ch = it.atom.ch;
    if (ch !== undefined && /^\p{L}$/u.test(ch) && it.atom.tex === ch) {
      // Text in a formula ("if", "e.g.", "tokens."): upright letters of the text font, with the
      // punctuation and spaces of their run.
      const textRun = !it.atom.italic && !it.atom.mathFont;
      const joins = (a: Atom, b: Atom) =>
        b.ch !== undefined &&
        b.tex === b.ch &&
        b.run === a.run &&
        b.x0 - a.x1 < size * 0.3 &&
        (textRun ? /^[\p{L}.,;:'-]$/u.test(b.ch) && (!b.sp || /^\p{L}/u.test(b.ch)) : /^\p{L}$/u.test(b.ch) && !b.sp);
      let j = i;
      while (
        j + 1 < items.length &&
        items[j]!.sup.length === 0 &&
        items[j]!.sub.length === 0 &&
        joins(items[j]!.atom, items[j + 1]!.atom)
      )
        j++;
      const run = items.slice(i, j + 1).map((x) => x.atom);
      const word = run.map((a, k) => (k > 0 && a.sp ? ' ' : '') + a.ch).join('');
      const wordTex =
        textRun && /[ .,;:]/.test(word) && (word.match(/\p{L}/gu) ?? []).length >= 2
          ? `\\text{${word}}`
          : wordLatex(word, !!it.atom.italic, typedAsText, !!it.atom.spaced);
      if (wordTex !== undefined) {
        parts.push(scripts(wordTex, items[j]!));
        i = j;
        continue;
      }
      // Separate variables: the whole run is letters, so no tail of it becomes a function name
      // ("Softmax" must not end in \max).
      if (j > i) {
        parts.push(...run.slice(0, -1).map((a) => a.tex), scripts(run[run.length - 1]!.tex, items[j]!));
        i = j;
        continue;
      }
    }
    if (ch !== undefined && /^[0-9]$/.test(ch)) {
      // A number: digits with their decimal point (and thin-space thousands groups).
      let j = i;
      let num = ch;
      while (
        j + 1 < items.length &&
        items[j]!.sup.length === 0 &&
        items[j]!.sub.length === 0 &&
        /^[0-9.]$/.test(items[j + 1]!.atom.ch ?? '') &&
        !(items[j + 1]!.atom.ch === '.' && !/^[0-9]$/.test(items[j + 2]?.atom.ch ?? ''))
      ) {
        j++;
        num += items[j]!.atom.ch;
      }
      parts.push(scripts(num, items[j]!));
      i = j;
      continue;
    }
    parts.push(scripts(it.atom.tex, it));
  }
  return join(parts);
}

function scripts(tex: string, it: { sup: Atom[]; sub: Atom[] }): string {
  let out = tex;
  // A base that is itself a command with arguments, or a script, needs braces before more scripts.
  if (
    (it.sub.length || it.sup.length) &&
    /[_^]/.test(tex) &&
    !/^\\(sum|prod|int|bigcup|bigcap|coprod|oint|iint|iiint|bigoplus|bigotimes)/.test(tex)
  )
    out = `{${out}}`;
  const sup = it.sup.length ? layout(it.sup) : '';
  // Primes are superscripts already, written before the subscript as sources do: x′ᵢ → x'_{i}.
  if (/^'+$/.test(sup)) return `${out}${sup}${it.sub.length ? `_{${layout(it.sub)}}` : ''}`;
  if (it.sub.length) out += `_{${layout(it.sub)}}`;
  if (sup) out += `^{${sup}}`;
  return out;
}

/** Unicode super- and subscript characters and the script they stand for. */
const UNICODE_SCRIPTS = new Map<string, { ch: string; up: boolean }>([
  ...[...'⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱ'].map((c) => [c, { ch: c.normalize('NFKC').replace('−', '-'), up: true }] as const),
  ...[...'₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₒₓₕₖₗₘₙₚₛₜ'].map(
    (c) => [c, { ch: c.normalize('NFKC').replace('−', '-'), up: false }] as const,
  ),
]);

/** LaTeX for a run of letters of one font, or undefined when they are separate variables. */
function wordLatex(word: string, italic: boolean, typedAsText = false, identifier = false): string | undefined {
  if (word.length < 2) return undefined;
  if (FUNCTIONS.has(word)) return `\\${word}`;
  if (word === 'mod') return '\\bmod';
  if (typedAsText && word.length <= 2 && /^\p{Ll}+$/u.test(word)) return undefined;
  if (!italic && word.length >= 2) return `\\mathrm{${word}}`;
  // TeX's italic letters stay letters, whatever they spell: `y_{prev}`, `Softmax(x)` are typeset
  // so by their authors. LibreOffice Math sets a typed name ("Attention") as one italic
  // identifier, letter-spaced in its own run: that is a word, written upright as authors write it.
  if (identifier && word.length >= 4 && /[aeiouy]/i.test(word) && !/^[A-Z]+$/.test(word)) return `\\mathrm{${word}}`;
  return undefined;
}

/** Joins LaTeX pieces, with a space only where a command name would run into a letter. */
function join(parts: string[]): string {
  let out = '';
  for (const p of parts) {
    if (!p) continue;
    if (/\\[A-Za-z]+$/.test(out) && /^[A-Za-z]/.test(p)) out += ' ';
    out += p;
  }
  return out;
}

/** Final clean-up: empty groups and spaces the renderer does not need. */
function tidy(tex: string): string {
  return tex
    .replace(/\^\{\}|_\{\}/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}
