/**
 * The olmOCR-bench test types (olmocr/bench/tests.py), same fields and same semantics, run on a
 * converter's Markdown (or plain text) for one page:
 *
 * - `present` / `absent` (TextPresenceTest): `text`, `case_sensitive` (default true),
 *   `first_n` / `last_n` (look only at the first/last n characters of the normalized output),
 *   `max_diffs` → threshold 1 − max_diffs / len(text) on rapidfuzz `partial_ratio`; an output
 *   shorter than len(text) − max_diffs fails `present` and passes `absent`.
 * - `order` (TextOrderTest): `before`, `after`; some near match (Levenshtein ≤ max_diffs) of
 *   `before` starts before some near match of `after`. max_diffs ≤ half of either string.
 * - `table` (TableTest): `cell` plus optional `up`, `down`, `left`, `right`, `top_heading`,
 *   `left_heading`; some cell of some Markdown or HTML table matches `cell` (ratio ≥
 *   max(0.5, 1 − max_diffs/len)) and every given neighbour relation holds for that cell.
 * - `math` (MathTest): `math` (LaTeX); some `\(…\)`, `\[…\]`, `$$…$$` or `$…$` formula in the
 *   output equals it, or contains it rendered: olmOCR renders both with KaTeX and passes when the
 *   reference's MathML is inside the hypothesis's, or every reference glyph is found with the same
 *   neighbours. Here: KaTeX's MathML containment exactly, and for the glyph criterion the
 *   reference's row inside the hypothesis's row with its closing punctuation set aside
 *   (eval/metrics/mathml.ts). Also a match: equal after Folio's LaTeX normalization
 *   (eval/metrics/latex.ts: spacing commands, \left/\right, braces around one token, synonyms
 *   such as \le/\leq). Glyph-layout matches of differently written formulas (e.g. `x^2_1` vs
 *   `x_1^2`) the MathML does not show count as a miss here.
 * - `baseline` (BaselineTest): output not empty (or, with `max_length`, at most that many
 *   alphanumerics: a blank-page check), no run of more than `max_repeats` (30) repeated n-grams
 *   (n ≤ 5) at its end, no CJK/kana/emoji characters unless `check_disallowed_characters` is false.
 *   The repeat check reimplements olmOCR's RepeatDetector idea (consecutive repeats of the
 *   final character n-gram), not its code.
 */
import { normalizeLatex } from '../metrics/latex';
import { mathmlInner, rowOf } from '../metrics/mathml';
import { isFailureClass, type FailureClass } from './classes';
import { nearMatchStarts, partialRatio, ratio } from './fuzzy';
import { normalizeText } from './normalize';
import { headingWalk, htmlTables, markdownTables, type TableGraph } from './tableGraph';

export const TEST_TYPES = ['present', 'absent', 'order', 'table', 'math', 'baseline'] as const;
export type TestType = (typeof TEST_TYPES)[number];

interface Base {
  id: string;
  /** Where the PDF is: `corpus/<path in the shared corpus>` or `debian/<key in debian.tsv>`, optionally `raster<dpi>/…` (the page as an image-only PDF). */
  pdf: string;
  /** 1-based page number in that PDF. */
  page: number;
  type: TestType;
  max_diffs: number;
  /** The failure classes this test probes. */
  class: FailureClass[];
  /** `verified`: a person compared it with the rendered page image. */
  checked?: 'verified' | 'rejected';
}

export interface PresenceTest extends Base {
  type: 'present' | 'absent';
  text: string;
  case_sensitive: boolean;
  first_n?: number;
  last_n?: number;
}
export interface OrderTest extends Base {
  type: 'order';
  before: string;
  after: string;
}
export interface TableTest extends Base {
  type: 'table';
  cell: string;
  up: string;
  down: string;
  left: string;
  right: string;
  top_heading: string;
  left_heading: string;
}
export interface MathTest extends Base {
  type: 'math';
  math: string;
}
export interface BaselineTest extends Base {
  type: 'baseline';
  max_length?: number;
  max_repeats: number;
  check_disallowed_characters: boolean;
}
export type PageTest = PresenceTest | OrderTest | TableTest | MathTest | BaselineTest;

export interface Outcome {
  passed: boolean;
  why: string;
}

/** Why a JSONL line is not a valid test. */
export class TestFormatError extends Error {}

const KNOWN_FIELDS: Record<TestType, string[]> = {
  present: ['text', 'case_sensitive', 'first_n', 'last_n'],
  absent: ['text', 'case_sensitive', 'first_n', 'last_n'],
  order: ['before', 'after'],
  table: ['cell', 'up', 'down', 'left', 'right', 'top_heading', 'left_heading', 'ignore_markdown_tables'],
  math: ['math', 'ignore_dollar_delimited'],
  baseline: ['max_length', 'max_length_skips_image_alt_tags', 'max_repeats', 'check_disallowed_characters'],
};
const BASE_FIELDS = ['id', 'pdf', 'page', 'type', 'max_diffs', 'class', 'checked', 'url', 'note'];

/** Validates one parsed JSONL object (olmOCR's `__post_init__` checks plus this set's own fields). */
export function parseTest(o: unknown): PageTest {
  if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new TestFormatError('not a JSON object');
  const x = o as Record<string, unknown>;
  const str = (k: string, required = true): string => {
    const v = x[k];
    if (v === undefined && !required) return '';
    if (typeof v !== 'string') throw new TestFormatError(`"${k}" must be a string`);
    return v;
  };
  const id = str('id');
  if (!id) throw new TestFormatError('Test ID cannot be empty');
  const pdf = str('pdf');
  if (!/^(raster\d{2,3}\/)?(corpus|debian)\/[^\0]+$/.test(pdf) || pdf.split('/').includes('..'))
    throw new TestFormatError(
      `${id}: "pdf" must be [raster<dpi>/]corpus/<path> or [raster<dpi>/]debian/<key> without ".."`,
    );
  const page = x.page;
  if (typeof page !== 'number' || !Number.isInteger(page) || page < 1)
    throw new TestFormatError(`${id}: "page" must be a positive integer`);
  const type = x.type as TestType;
  if (!TEST_TYPES.includes(type)) throw new TestFormatError(`${id}: Invalid test type: ${String(x.type)}`);
  const maxDiffs = x.max_diffs ?? 0;
  if (typeof maxDiffs !== 'number' || !Number.isInteger(maxDiffs) || maxDiffs < 0)
    throw new TestFormatError(`${id}: Max diffs must be positive number or 0`);
  const cls = x.class;
  if (!Array.isArray(cls) || cls.length === 0 || !cls.every((c) => typeof c === 'string' && isFailureClass(c)))
    throw new TestFormatError(`${id}: "class" must be a non-empty list of classes from eval/realworld/classes.ts`);
  const checked = x.checked;
  if (checked !== undefined && checked !== 'verified' && checked !== 'rejected')
    throw new TestFormatError(`${id}: "checked" must be "verified" or "rejected"`);
  for (const k of Object.keys(x))
    if (!BASE_FIELDS.includes(k) && !KNOWN_FIELDS[type].includes(k))
      throw new TestFormatError(`${id}: unknown field "${k}" for a ${type} test`);
  const base = {
    id,
    pdf,
    page,
    max_diffs: maxDiffs,
    class: cls as FailureClass[],
    checked: checked as Base['checked'],
  };
  const optInt = (k: string): number | undefined => {
    const v = x[k];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0)
      throw new TestFormatError(`${id}: "${k}" must be a non-negative integer`);
    return v;
  };
  switch (type) {
    case 'present':
    case 'absent': {
      const text = normalizeText(str('text'));
      if (!text.trim()) throw new TestFormatError(`${id}: Text field cannot be empty`);
      const cs = x.case_sensitive ?? true;
      if (typeof cs !== 'boolean') throw new TestFormatError(`${id}: "case_sensitive" must be a boolean`);
      return { ...base, type, text, case_sensitive: cs, first_n: optInt('first_n'), last_n: optInt('last_n') };
    }
    case 'order': {
      const before = normalizeText(str('before'));
      const after = normalizeText(str('after'));
      if (!before.trim()) throw new TestFormatError(`${id}: Before field cannot be empty`);
      if (!after.trim()) throw new TestFormatError(`${id}: After field cannot be empty`);
      if (maxDiffs > Math.floor([...before].length / 2) || maxDiffs > Math.floor([...after].length / 2))
        throw new TestFormatError(`${id}: Max diffs is too large for this test, greater than 50% of the search string`);
      return { ...base, type, before, after };
    }
    case 'table': {
      if (x.ignore_markdown_tables) throw new TestFormatError(`${id}: ignore_markdown_tables is not used in this set`);
      const f = (k: string) => normalizeText(str(k, false));
      const cell = f('cell');
      if (!cell.trim()) throw new TestFormatError(`${id}: "cell" cannot be empty`);
      const t: TableTest = {
        ...base,
        type,
        cell,
        up: f('up'),
        down: f('down'),
        left: f('left'),
        right: f('right'),
        top_heading: f('top_heading'),
        left_heading: f('left_heading'),
      };
      if (!t.up && !t.down && !t.left && !t.right && !t.top_heading && !t.left_heading)
        throw new TestFormatError(`${id}: a table test names at least one neighbour of its cell`);
      return t;
    }
    case 'math': {
      if (x.ignore_dollar_delimited)
        throw new TestFormatError(`${id}: ignore_dollar_delimited is not used in this set`);
      const math = str('math');
      if (!math.trim()) throw new TestFormatError(`${id}: Math test must have non-empty math expression`);
      return { ...base, type, math };
    }
    case 'baseline': {
      const mr = optInt('max_repeats') ?? 30;
      const cd = x.check_disallowed_characters ?? true;
      if (typeof cd !== 'boolean') throw new TestFormatError(`${id}: "check_disallowed_characters" must be a boolean`);
      if (x.max_length_skips_image_alt_tags)
        throw new TestFormatError(`${id}: max_length_skips_image_alt_tags is not used in this set`);
      return { ...base, type, max_length: optInt('max_length'), max_repeats: mr, check_disallowed_characters: cd };
    }
  }
}

function runPresence(t: PresenceTest, md: string): Outcome {
  let query = t.text;
  let content = normalizeText(md);
  if (!t.case_sensitive) {
    query = query.toLowerCase();
    content = content.toLowerCase();
  }
  if (t.first_n && t.last_n) content = content.slice(0, t.first_n) + content.slice(-t.last_n);
  else if (t.first_n) content = content.slice(0, t.first_n);
  else if (t.last_n) content = content.slice(-t.last_n);
  const qlen = [...query].length;
  // olmOCR's length guard: partial_ratio is symmetric, so a near-empty output would "contain" a query.
  if ([...content].length < qlen - t.max_diffs)
    return t.type === 'present'
      ? { passed: false, why: `output too short for '${query.slice(0, 40)}'` }
      : { passed: true, why: '' };
  const threshold = 1 - t.max_diffs / (qlen || 1);
  const best = partialRatio(query, content);
  if (t.type === 'present')
    return best >= threshold
      ? { passed: true, why: '' }
      : {
          passed: false,
          why: `expected '${query.slice(0, 60)}' (threshold ${threshold.toFixed(3)}), best match ${best.toFixed(3)}`,
        };
  return best < threshold
    ? { passed: true, why: '' }
    : {
        passed: false,
        why: `expected no '${query.slice(0, 60)}' (threshold ${threshold.toFixed(3)}), best match ${best.toFixed(3)}`,
      };
}

function runOrder(t: OrderTest, md: string): Outcome {
  const content = normalizeText(md);
  const b = nearMatchStarts(t.before, content, t.max_diffs);
  const a = nearMatchStarts(t.after, content, t.max_diffs);
  if (!b.length) return { passed: false, why: `'before' text '${t.before.slice(0, 40)}' not found` };
  if (!a.length) return { passed: false, why: `'after' text '${t.after.slice(0, 40)}' not found` };
  return Math.min(...b) < Math.max(...a)
    ? { passed: true, why: '' }
    : { passed: false, why: `'${t.before.slice(0, 40)}' never precedes '${t.after.slice(0, 40)}'` };
}

function runTable(t: TableTest, md: string): Outcome {
  const tables: TableGraph[] = [...markdownTables(md), ...htmlTables(md)];
  if (!tables.length) return { passed: false, why: 'no tables found in the output' };
  const thr = (s: string) => Math.max(0.5, 1 - t.max_diffs / ([...s].length || 1));
  const reasons: string[] = [];
  for (const tab of tables) {
    for (const [cid, text] of tab.cellText) {
      if (ratio(t.cell, normalizeText(text)) < thr(t.cell)) continue;
      const fails: string[] = [];
      const check = (want: string, cells: Iterable<string>, name: string) => {
        if (!want) return;
        let ok = false;
        for (const c of cells) if (ratio(want, normalizeText(tab.cellText.get(c) ?? '')) >= thr(want)) ok = true;
        if (!ok) fails.push(`${name} is not '${want}'`);
      };
      check(t.up, tab.up.get(cid) ?? [], 'up');
      check(t.down, tab.down.get(cid) ?? [], 'down');
      check(t.left, tab.left.get(cid) ?? [], 'left');
      check(t.right, tab.right.get(cid) ?? [], 'right');
      if (t.left_heading) check(t.left_heading, headingWalk(tab, cid, tab.left), 'left heading');
      if (t.top_heading) check(t.top_heading, headingWalk(tab, cid, tab.up), 'top heading');
      if (!fails.length) return { passed: true, why: '' };
      reasons.push(...fails);
    }
  }
  return {
    passed: false,
    why: reasons.length
      ? `cell '${t.cell}' found but ${reasons.slice(0, 3).join('; ')}`
      : `no cell '${t.cell}' in any table`,
  };
}

/** Formulas in the output by olmOCR's delimiters, each pattern's matches removed before the next. */
export function formulasIn(md: string): string[] {
  const out: string[] = [];
  let rest = md;
  for (const re of [/\\\(([\s\S]+?)\\\)/g, /\\\[([\s\S]+?)\\\]/g, /\$\$([\s\S]+?)\$\$/g, /\$([\s\S]+?)\$/g]) {
    for (const m of rest.matchAll(re)) out.push(m[1].trim());
    rest = rest.replace(re, '');
  }
  return out;
}

/**
 * olmOCR's rendered comparison, as far as it goes without a browser: the reference's MathML is
 * inside the hypothesis's (its first criterion, exactly); or the reference's row of parts is inside
 * the hypothesis's row once the hypothesis's sentence punctuation at its end is set aside, which
 * its second criterion (every reference glyph found with the same neighbours; glyphs the reference
 * lacks, such as a comma after the formula, are allowed) accepts too. KaTeX writes "0." as one
 * number, so the punctuation is taken off the LaTeX, not the MathML.
 */
function renderedContains(reference: string, hypothesis: string): boolean {
  const ref = mathmlInner(reference);
  if (!ref) return false;
  const hyp = mathmlInner(hypothesis);
  if (hyp?.includes(ref)) return true;
  const bare = hypothesis.replace(/\s*[.,;:]+\s*$/, '');
  const row = bare !== hypothesis ? mathmlInner(bare) : hyp;
  return !!row && rowOf(row).includes(rowOf(ref));
}

function runMath(t: MathTest, md: string): Outcome {
  const eqs = formulasIn(md);
  if (eqs.some((e) => e === t.math)) return { passed: true, why: '' };
  const want = normalizeLatex(t.math).replace(/\s+/g, '');
  if (eqs.some((e) => normalizeLatex(e).replace(/\s+/g, '') === want)) return { passed: true, why: '' };
  if (eqs.some((e) => renderedContains(t.math, e))) return { passed: true, why: '' };
  return { passed: false, why: `no formula equal to ${t.math} (${eqs.length} formulas in the output)` };
}

const DISALLOWED =
  /[\u4e00-\u9fff\u3040-\u309f\u30a0-\u30ff\u{1f600}-\u{1f64f}\u{1f300}-\u{1f5ff}\u{1f680}-\u{1f6ff}\u{1f1e0}-\u{1f1ff}]/u;

/** Longest run of consecutive repeats of the final n-gram, for n = 1…5 (characters). */
export function endRepeats(s: string, maxN = 5): number[] {
  const c = [...s.trimEnd()];
  const out: number[] = [];
  for (let n = 1; n <= maxN; n++) {
    if (c.length < n) {
      out.push(0);
      continue;
    }
    const last = c.slice(-n).join('');
    let k = 1;
    while (c.length >= (k + 1) * n && c.slice(c.length - (k + 1) * n, c.length - k * n).join('') === last) k++;
    out.push(k);
  }
  return out;
}

function runBaseline(t: BaselineTest, md: string): Outcome {
  const alnum = [...md].filter((ch) => /[\p{L}\p{N}]/u.test(ch)).length;
  if (t.max_length !== undefined)
    return alnum > t.max_length
      ? { passed: false, why: `${alnum} characters on a page expected blank` }
      : { passed: true, why: '' };
  if (alnum === 0) return { passed: false, why: 'no alphanumeric characters' };
  const reps = endRepeats(md);
  const bad = reps.findIndex((r) => r > t.max_repeats);
  if (bad >= 0) return { passed: false, why: `ends with ${reps[bad]} repeated ${bad + 1}-grams` };
  if (t.check_disallowed_characters && DISALLOWED.test(md))
    return { passed: false, why: 'contains CJK/kana/emoji characters' };
  return { passed: true, why: '' };
}

export function runTest(t: PageTest, md: string): Outcome {
  switch (t.type) {
    case 'present':
    case 'absent':
      return runPresence(t, md);
    case 'order':
      return runOrder(t, md);
    case 'table':
      return runTable(t, md);
    case 'math':
      return runMath(t, md);
    case 'baseline':
      return runBaseline(t, md);
  }
}
