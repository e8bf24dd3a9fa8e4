/**
 * The real-world set (issue 23): the olmOCR-bench test semantics (each type passes on a correct
 * Markdown and fails on a wrong one), the fuzzy matchers against values rapidfuzz gives, and the
 * committed JSONL: well-formed, ≥ 1,600 tests on ≥ 220 pages, every class of the issue covered,
 * and every page it names resolves (shared corpus, installed Debian packages with their hash).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseTest, runTest, TEST_TYPES, TestFormatError, type PageTest } from '../../eval/realworld/checks';
import { FAILURE_CLASSES } from '../../eval/realworld/classes';
import { compareRuns } from '../../eval/realworld/compare';
import { nearMatchStarts, partialRatio, ratio } from '../../eval/realworld/fuzzy';
import { normalizeText } from '../../eval/realworld/normalize';
import { imagePdf, materializePages, pdfBytes, sha256, type DebianSource } from '../../eval/realworld/pages';
import { readTests, setDir, TESTS_FILE } from '../../eval/realworld/set';
import { corpusRoot } from '../../eval/corpus';
import { repoRoot } from '../../eval/repo';

const base = { id: 't', pdf: 'corpus/x.pdf', page: 1, class: ['text'] };
const mk = (o: Record<string, unknown>): PageTest => parseTest({ ...base, ...o });
const passes = (t: PageTest, md: string) => runTest(t, md).passed;

test('normalizeText: olmOCR rules (emphasis, whitespace, quotes, dashes, NFC, micro)', () => {
  assert.equal(normalizeText('**Bold** and *it*\n\n“q” – x−y e\u0301 \u00b5m'), 'Bold and it "q" - x-y é μm');
  assert.equal(normalizeText('a<br/>b'), 'a b');
});

/** rapidfuzz's partial_ratio by its definition, with a plain LCS table: the reference for the bit-parallel one. */
function lcsTable(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++)
      d[i][j] = a[i - 1] === b[j - 1] ? d[i - 1][j - 1] + 1 : Math.max(d[i - 1][j], d[i][j - 1]);
  return d[a.length][b.length];
}
function partialByDefinition(a: string, b: string): number {
  if (a.length > b.length) [a, b] = [b, a];
  const n = a.length;
  let best = 0;
  for (let i = 1; i < n; i++) best = Math.max(best, (2 * lcsTable(a, b.slice(0, i))) / (n + i));
  for (let i = 0; i + n <= b.length; i++) best = Math.max(best, (2 * lcsTable(a, b.slice(i, i + n))) / (2 * n));
  for (let i = Math.max(0, b.length - n); i < b.length; i++)
    best = Math.max(best, (2 * lcsTable(a, b.slice(i))) / (n + b.length - i));
  return best;
}

test('fuzzy: ratio and partial_ratio as rapidfuzz defines them', () => {
  // rapidfuzz's README: fuzz.ratio("this is a test", "this is a test!") = 96.55, partial_ratio = 100.
  assert.ok(Math.abs(ratio('this is a test', 'this is a test!') - 0.9655172413793104) < 1e-12);
  assert.equal(partialRatio('this is a test', 'this is a test!'), 1);
  // Windows hanging off either end count (rapidfuzz scores prefixes and suffixes too).
  assert.ok(Math.abs(partialRatio('abcd', 'cdxxxxxx') - (2 * 2) / (4 + 2)) < 1e-12);
  assert.equal(partialRatio('', 'x'), 0);
  // Seeded random strings, needles across the 32-bit word boundary: bit-parallel = definition.
  let seed = 42;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const str = (n: number) => Array.from({ length: n }, () => 'abcde '[Math.floor(rnd() * 6)]).join('');
  for (let k = 0; k < 400; k++) {
    const a = str([1, 3, 10, 33, 40, 70][k % 6]);
    const b = str([1, 5, 20, 60, 150][k % 5]);
    const want =
      a.length === b.length
        ? Math.max(partialByDefinition(a, b), partialByDefinition(b, a))
        : partialByDefinition(a, b);
    assert.ok(Math.abs(partialRatio(a, b) - want) < 1e-12, `partialRatio(${a}, ${b})`);
  }
  assert.deepEqual(nearMatchStarts('abc', 'xabcabc', 0), [1, 4]);
  assert.ok(nearMatchStarts('abcdef', 'zzabXdefzz', 1).includes(2));
  assert.deepEqual(nearMatchStarts('abcdef', 'zzabXYefzz', 1), []);
});

test('present / absent: exact, fuzzy (max_diffs), case, first_n / last_n, the length guard', () => {
  const p = mk({ type: 'present', text: 'Exercise 212.' });
  assert.ok(passes(p, 'Some text\n\n212. Exercise 212. Find x.'));
  assert.ok(!passes(p, '1. Exercise 1. Find x.'));
  assert.ok(passes(mk({ type: 'present', text: 'Poincaré duality', max_diffs: 1 }), 'Poincare duality'));
  assert.ok(!passes(mk({ type: 'present', text: 'Poincaré duality' }), 'Poincar´e duality'));
  assert.ok(passes(mk({ type: 'present', text: 'REFERENCES', case_sensitive: false }), '## References'));
  assert.ok(!passes(mk({ type: 'present', text: 'REFERENCES' }), '## References'));
  assert.ok(passes(mk({ type: 'present', text: '# Title', first_n: 20 }), '# Title\n\nbody '.repeat(10)));
  assert.ok(!passes(mk({ type: 'present', text: 'end marker', first_n: 20 }), 'x'.repeat(50) + ' end marker'));
  assert.ok(passes(mk({ type: 'present', text: 'end marker', last_n: 20 }), 'x'.repeat(50) + ' end marker'));
  const a = mk({ type: 'absent', text: 'Downloaded from https://x.org' });
  assert.ok(passes(a, '# Paper\n\nBody text.'));
  assert.ok(!passes(a, 'Body.\n\nDownloaded from https://x.org on 1 May'));
  // An (almost) empty output does not contain a long query, whatever partial_ratio says.
  assert.ok(!passes(mk({ type: 'present', text: 'a long phrase' }), '\n'));
  assert.ok(passes(mk({ type: 'absent', text: 'a long phrase' }), '\n'));
});

test('order: before/after, fuzzy, missing text fails', () => {
  const o = mk({ type: 'order', before: 'left column ends here', after: 'right column starts' });
  assert.ok(passes(o, 'x left column ends here. right column starts y'));
  assert.ok(!passes(o, 'right column starts. left column ends here.'));
  assert.ok(!passes(o, 'left column ends here only'));
  assert.ok(
    passes(
      mk({ type: 'order', before: 'left column ends here', after: 'right column starts', max_diffs: 2 }),
      'left colunm ends here, right column starts',
    ),
  );
  assert.throws(() => mk({ type: 'order', before: 'ab', after: 'cdef', max_diffs: 2 }), TestFormatError);
});

test('table: neighbours and headings in Markdown and HTML tables', () => {
  const md = '| Method | Acc | F1 |\n| --- | --- | --- |\n| Ours | 91.2 | 88.0 |\n| Base | 85.1 | 80.3 |\n';
  const t = mk({
    type: 'table',
    cell: '88.0',
    up: 'F1',
    left: '91.2',
    top_heading: 'F1',
    left_heading: 'Ours',
    down: '80.3',
  });
  assert.ok(passes(t, md));
  assert.ok(!passes(t, md.replace('| Ours | 91.2 | 88.0 |', '| Ours | 88.0 | 91.2 |')));
  assert.ok(!passes(t, 'Method Acc F1 Ours 91.2 88.0'), 'plain text has no table');
  const html =
    '<table><thead><tr><th>Method</th><th colspan="2">Scores</th></tr></thead><tr><td>Ours</td><td>91.2</td><td>88.0</td></tr></table>';
  assert.ok(passes(mk({ type: 'table', cell: '88.0', top_heading: 'Scores', left: '91.2' }), html));
  assert.ok(passes(mk({ type: 'table', cell: '91.2', top_heading: 'Scores', left_heading: 'Ours' }), html));
  assert.ok(!passes(mk({ type: 'table', cell: '91.2', top_heading: 'Method' }), html));
  assert.throws(() => mk({ type: 'table', cell: 'x' }), TestFormatError);
});

test('math: delimited formulas, exact or after LaTeX normalization', () => {
  const m = mk({ type: 'math', math: '\\sum_{i=1}^{n} x_i \\le C' });
  assert.ok(passes(m, 'We have $$\\sum_{i=1}^{n} x_{i} \\leq C$$ and more.'));
  assert.ok(passes(m, 'inline \\(\\sum_{i=1}^{n} x_i \\le C\\) too'));
  assert.ok(!passes(m, 'We have $$\\sum_{i=1}^{n} x_i \\ge C$$'));
  assert.ok(!passes(m, '∑ x_i ≤ C (no delimiters)'));
});

test('math: contained as olmOCR renders it (KaTeX MathML; closing punctuation after the formula)', () => {
  const lim = mk({ type: 'math', math: '\\lim_{v \\to 0} \\frac{H(z+v)-H(z)}{\\|v\\|} = 0' });
  // amsmath's testmath sets the sentence's full stop inside the display: olmOCR passes it.
  assert.ok(passes(lim, '$$\\lim_{v\\to0}\\frac{H(z+v)-H(z)}{\\|v\\|}=0.$$'));
  assert.ok(passes(mk({ type: 'math', math: 'E = mc^2' }), '$$E=mc^{2},$$'));
  // The reference's MathML inside a larger formula's.
  assert.ok(passes(mk({ type: 'math', math: '\\frac{a}{b}' }), '$$x + \\frac{a}{b} = 1$$'));
  // Still misses: another exponent, another limit, the reference with a part the output lacks.
  assert.ok(!passes(mk({ type: 'math', math: 'E = mc^2' }), '$$E=mc^{3}.$$'));
  assert.ok(!passes(lim, '$$\\lim_{v\\to1}\\frac{H(z+v)-H(z)}{\\|v\\|}=0.$$'));
  assert.ok(!passes(mk({ type: 'math', math: 'x = 0.5' }), '$$x = 0$$'));
});

test('two runs compared test by test: gains and losses, other converters and new tests aside', () => {
  const row = (id: string, passed: boolean, peer = 'Folio') => ({
    id,
    peer,
    passed,
    why: passed ? '' : `${id} failed`,
  });
  const c = compareRuns(
    [row('a', true), row('b', false), row('c', true), row('a', false, 'pdftotext')],
    [row('a', true), row('b', true), row('c', false), row('d', true), row('a', true, 'pdftotext')],
  );
  assert.deepEqual(c.before, { passed: 2, total: 3 });
  assert.deepEqual(c.after, { passed: 3, total: 4 });
  assert.equal(c.common, 3);
  assert.deepEqual(c.gained, ['b']);
  assert.deepEqual(c.lost, [{ id: 'c', why: 'c failed' }]);
  assert.throws(() => compareRuns([], [row('a', true)]), /nothing measured/);
  assert.throws(() => compareRuns([row('x', true)], [row('y', true)]), /nothing measured: the tests both runs share/);
});

test('baseline: not blank, no endless repeats, no CJK; blank-page check', () => {
  const b = mk({ type: 'baseline' });
  assert.ok(passes(b, '# Page\n\nSome text.'));
  assert.ok(!passes(b, '  \n---\n'));
  assert.ok(!passes(b, 'Text ' + 'ab'.repeat(40)));
  assert.ok(!passes(b, 'Text 漢字'));
  assert.ok(passes(mk({ type: 'baseline', max_length: 5 }), '12'));
  assert.ok(!passes(mk({ type: 'baseline', max_length: 5 }), 'a blank page with words'));
});

test('parseTest rejects malformed tests with a reason', () => {
  assert.throws(() => parseTest({ ...base, type: 'present', text: '  ' }), /empty/);
  assert.throws(() => parseTest({ ...base, type: 'nope', text: 'x' }), /Invalid test type/);
  assert.throws(() => parseTest({ ...base, pdf: 'corpus/../etc/passwd', type: 'present', text: 'x' }), /without/);
  assert.throws(() => parseTest({ ...base, class: ['not-a-class'], type: 'present', text: 'x' }), /class/);
  assert.throws(() => parseTest({ ...base, type: 'present', text: 'x', txet: 'typo' }), /unknown field/);
});

test('the committed set: well-formed, ≥ 1,600 tests on ≥ 220 pages (issue 40), every class and test type used, all checked, every page resolves', () => {
  const repo = repoRoot();
  const tests = readTests(join(setDir(repo), TESTS_FILE));
  const pages = new Set(tests.map((t) => `${t.pdf}#${t.page}`));
  assert.ok(tests.length >= 1600, `${tests.length} tests`);
  assert.ok(pages.size >= 220, `${pages.size} pages`);
  for (const c of Object.keys(FAILURE_CLASSES))
    assert.ok(
      tests.some((t) => t.class.includes(c as never)),
      `no test probes class ${c}`,
    );
  for (const ty of TEST_TYPES)
    assert.ok(
      tests.some((t) => t.type === ty),
      `no ${ty} test`,
    );
  const unchecked = tests.filter((t) => t.checked !== 'verified');
  assert.deepEqual(
    unchecked.map((t) => t.id),
    [],
    'every test is checked against its page image',
  );
  const dir = mkdtempSync(join(tmpdir(), 'folio-rw-test-'));
  try {
    const files = materializePages(tests, dir, corpusRoot(repo), setDir(repo));
    assert.equal(files.size, pages.size);
    for (const f of files.values()) assert.ok(statSync(f).size > 0, f);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('Debian sources: a missing package or a changed file is an error naming the package; corpus paths stay inside', () => {
  const dir = mkdtempSync(join(tmpdir(), 'folio-rw-deb-'));
  try {
    const file = join(dir, 'doc.pdf');
    writeFileSync(file, '%PDF-1.4 test bytes');
    const good: DebianSource = {
      key: 'k',
      pkg: 'some-doc-package',
      path: file,
      sha256: sha256(Buffer.from('%PDF-1.4 test bytes')),
    };
    assert.equal(pdfBytes('debian/k', dir, new Map([['k', good]])).toString(), '%PDF-1.4 test bytes');
    assert.throws(
      () => pdfBytes('debian/k', dir, new Map([['k', { ...good, path: join(dir, 'gone.pdf') }]])),
      /install the Debian package "some-doc-package"/,
    );
    assert.throws(
      () => pdfBytes('debian/k', dir, new Map([['k', { ...good, sha256: '0'.repeat(64) }]])),
      /some-doc-package.*changed version/,
    );
    assert.throws(() => pdfBytes('debian/nokey', dir, new Map()), /no "nokey"/);
    assert.throws(() => pdfBytes('corpus/missing.pdf', dir, new Map()), /missing from the shared corpus/);
    // made/ pages live in the set's own made/ folder, and only there.
    mkdirSync(join(dir, 'made'));
    writeFileSync(join(dir, 'made', 'page.pdf'), '%PDF-1.4 made');
    assert.equal(pdfBytes('made/page.pdf', dir, new Map(), dir).toString(), '%PDF-1.4 made');
    assert.throws(() => pdfBytes('made/../doc.pdf', dir, new Map(), dir), /leaves eval\/realworld\/made/);
    assert.throws(() => pdfBytes('made/gone.pdf', dir, new Map(), dir), /gone\.pdf is missing/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('raster pages: a JPEG wrapped alone in a PDF that poppler reads back as an image-only page of the right size', () => {
  const dir = mkdtempSync(join(tmpdir(), 'folio-rw-raster-'));
  try {
    // A real page rendered by poppler, as materializePages does for raster<dpi>/ refs.
    const src = join(dir, 'src.pdf');
    writeFileSync(
      src,
      imagePdf(
        execFileSync('pdftoppm', [
          '-r',
          '20',
          '-jpeg',
          '-singlefile',
          join(repoRoot(), 'test', 'fixtures', 'sample.pdf'),
        ]),
        20,
      ),
    );
    const info = execFileSync('pdfinfo', [src]).toString();
    assert.match(info, /Pages:\s+1/);
    const size = /Page size:\s+([\d.]+) x ([\d.]+)/.exec(info)!;
    assert.ok(Math.abs(Number(size[1]) - 612) < 4 && Math.abs(Number(size[2]) - 792) < 4, info);
    assert.equal(execFileSync('pdftotext', [src, '-']).toString().trim(), '', 'no text layer');
    assert.match(execFileSync('pdfimages', ['-list', src]).toString(), /jpeg/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
