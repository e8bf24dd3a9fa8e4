/**
 * The sealed part of the real-world set (issue 40, eval/realworld/sealed.ts): the rule itself, the
 * reports that never show a sealed test's id or a sealed page's output, the comparison by
 * aggregates, and rule tests under test/ that stay off sealed pages.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseTest, type PageTest } from '../../eval/realworld/checks';
import { compareRuns, compareSealed } from '../../eval/realworld/compare';
import { writeRealworldReport, type RealworldResults } from '../../eval/realworld/report';
import {
  assertWorkingTests,
  inPart,
  isSealedPage,
  pageKey,
  partOf,
  SealedPageError,
} from '../../eval/realworld/sealed';
import { readTests, setDir, TESTS_FILE } from '../../eval/realworld/set';
import { repoRoot } from '../../eval/repo';
import type { PeerOutput } from '../../eval/peers/types';
import {
  SEALED_ID_PREFIXES_USED_BEFORE_THE_SEAL,
  SEALED_IDS_USED_BEFORE_THE_SEAL,
  SEALED_PAGES_USED_BEFORE_THE_SEAL,
} from '../layout/sealedLegacy';

test('the rule: first byte of SHA-256 of "<pdf>#<page>" below 64; a page, not a test, is sealed', () => {
  // Computed by hand with `printf '%s' KEY | sha256sum`.
  assert.equal(createHash('sha256').update('debian/els-cas-dc#1').digest('hex').slice(0, 2), '02');
  assert.equal(isSealedPage('debian/els-cas-dc', 1), true);
  assert.equal(pageKey('debian/els-cas-dc', 1), 'debian/els-cas-dc#1');
  for (let i = 0; i < 200; i++) {
    const pdf = `corpus/x-${i}.pdf`;
    const first = createHash('sha256').update(`${pdf}#3`).digest()[0];
    assert.equal(isSealedPage(pdf, 3), first < 64, pdf);
    assert.equal(partOf({ pdf, page: 3 }), first < 64 ? 'sealed' : 'working');
  }
  const tests = readTests(join(setDir(repoRoot()), TESTS_FILE));
  const pages = [...new Set(tests.map((t) => pageKey(t.pdf, t.page)))];
  const sealed = pages.filter(
    (k) => partOf({ pdf: k.slice(0, k.lastIndexOf('#')), page: Number(k.split('#').pop()) }) === 'sealed',
  );
  // About a quarter, and every test of a page in that page's part.
  assert.ok(
    sealed.length / pages.length > 0.17 && sealed.length / pages.length < 0.33,
    `${sealed.length}/${pages.length}`,
  );
  assert.equal(inPart(tests, 'sealed').length + inPart(tests, 'working').length, tests.length);
  assert.throws(() => assertWorkingTests([{ pdf: 'debian/els-cas-dc', page: 1 }]), SealedPageError);
  assert.doesNotThrow(() => assertWorkingTests(inPart(tests, 'working')));
});

/** `n` page refs of the given part. */
function refsOf(part: 'working' | 'sealed', n: number): { pdf: string; page: number }[] {
  const out: { pdf: string; page: number }[] = [];
  for (let i = 0; out.length < n; i++)
    if (partOf({ pdf: `corpus/doc-${i}.pdf`, page: 1 }) === part) out.push({ pdf: `corpus/doc-${i}.pdf`, page: 1 });
  return out;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

test('the reports show the sealed part by its rates only: no sealed id, test or output in any file or line', () => {
  const [w1, w2] = refsOf('working', 2);
  const [s1, s2] = refsOf('sealed', 2);
  const mk = (id: string, ref: { pdf: string; page: number }, o: Record<string, unknown>): PageTest =>
    parseTest({ id, ...ref, class: ['furniture'], checked: 'verified', ...o });
  const tests = [
    mk('work-a-01', w1, { type: 'present', text: 'Working words here' }),
    mk('work-a-02', w1, { type: 'absent', text: 'Running head of work' }),
    mk('work-b-01', w2, { type: 'present', text: 'Second working page' }),
    mk('seal-x-01', s1, { type: 'present', text: 'Sealed secret phrase' }),
    mk('seal-x-02', s1, { type: 'absent', text: 'Sealed running head' }),
    mk('seal-y-01', s2, { type: 'order', before: 'Sealed first block', after: 'Sealed second block' }),
  ];
  const pages = new Map(tests.map((t) => [pageKey(t.pdf, t.page), `/pages/${t.pdf.slice(7, -4)}.pdf`]));
  const out = (ref: { pdf: string; page: number }, text: string): [string, PeerOutput] => [
    pages.get(pageKey(ref.pdf, ref.page))!,
    { text, ms: 1 },
  ];
  // Folio passes one test of each part and fails the rest; its sealed outputs carry a marker.
  const folio = new Map([
    out(w1, 'Working words here\n\nRunning head of work'),
    out(w2, 'nothing'),
    out(s1, 'SEALED-OUTPUT-MARKER other words'),
    out(s2, 'SEALED-OUTPUT-MARKER Sealed second block. Sealed first block.'),
  ]);
  const dir = mkdtempSync(join(tmpdir(), 'folio-sealed-'));
  const lines: string[] = [];
  try {
    const res: RealworldResults = writeRealworldReport(dir, tests, pages, new Map([['Folio', folio]]), [], (s) =>
      lines.push(s),
    );
    assert.deepEqual(res.working.byType.Folio.overall, { passed: 1, total: 3 });
    assert.deepEqual(res.sealed.byType.Folio.overall, { passed: 1, total: 3 });
    assert.deepEqual(res.sealed.byType.Folio.order, { passed: 0, total: 1 });
    assert.deepEqual(res.sealed.byClass.Folio.furniture, { passed: 1, total: 3 });
    assert.equal(res.sealed.pages, 2);
    assert.deepEqual(res.results.map((r) => r.id).sort(), ['work-a-01', 'work-a-02', 'work-b-01']);
    const files = filesUnder(dir);
    assert.ok(files.some((f) => f.endsWith('folio-failures.md')) && files.some((f) => f.endsWith('results.json')));
    const texts = [...files.map((f) => [f, readFileSync(f, 'utf8')] as const), ['console', lines.join('\n')] as const];
    for (const [f, text] of texts)
      for (const secret of [
        'seal-x-01',
        'seal-x-02',
        'seal-y-01',
        'Sealed secret',
        'Sealed running',
        'Sealed first',
        'SEALED-OUTPUT-MARKER',
        s1.pdf,
        s2.pdf,
      ])
        assert.ok(!text.includes(secret), `${f} shows "${secret}"`);
    const failures = readFileSync(join(dir, 'folio-failures.md'), 'utf8');
    assert.match(failures, /work-a-02/);
    assert.match(failures, /work-b-01/);
    assert.match(failures, /sealed part's 2 failing tests are not listed/);
    // The side-by-side table: working and sealed columns, overall 0.333 in both.
    assert.match(lines.join('\n'), /overall +3 +3 +0\.333 +0\.333/);
    assert.match(lines.join('\n'), /furniture +3 +3 +0\.333 +0\.333/);
    assert.deepEqual(
      readdirSync(join(dir, 'outputs', 'Folio')).sort(),
      ['doc-' + w1.pdf.slice(11, -4) + '.md', 'doc-' + w2.pdf.slice(11, -4) + '.md'].sort(),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('two runs: working part test by test, sealed part by its aggregates', () => {
  const agg = (passed: number, total: number) => ({
    tests: total,
    byType: { Folio: { overall: { passed, total }, absent: { passed, total } } },
    byClass: { Folio: { furniture: { passed, total } } },
  });
  const s = compareSealed(agg(3, 4), agg(4, 4))!;
  assert.deepEqual(s[0], { key: 'overall', before: { passed: 3, total: 4 }, after: { passed: 4, total: 4 } });
  assert.ok(s.some((r) => r.key === 'class furniture' && r.after!.passed === 4));
  assert.equal(compareSealed(undefined, agg(1, 1)), undefined, 'a run from before the seal');
  const row = (id: string, passed: boolean) => ({ id, peer: 'Folio', passed, why: '' });
  assert.deepEqual(compareRuns([row('a', true)], [row('a', false)]).lost, [{ id: 'a', why: '' }]);
});

test('rule tests under test/ name no sealed test or page beyond those used before the seal', () => {
  const repo = repoRoot();
  const tests = readTests(join(setDir(repo), TESTS_FILE));
  const sealedIds = inPart(tests, 'sealed').map((t) => t.id);
  const sealedPrefixes = new Set(inPart(tests, 'sealed').map((t) => t.id.replace(/\d+$/, '')));
  const found: string[] = [];
  const src = filesUnder(join(repo, 'test')).filter(
    (f) => f.endsWith('.ts') && !f.endsWith('sealedLegacy.ts') && !f.endsWith(join('eval', 'sealed.test.ts')),
  );
  for (const f of src) {
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(/['"`]([a-z0-9][a-z0-9-]*)['"`]/g)) {
      const s = m[1];
      if (sealedIds.includes(s) && !SEALED_IDS_USED_BEFORE_THE_SEAL.has(s)) found.push(`${f}: ${s}`);
      if (sealedPrefixes.has(s) && !SEALED_ID_PREFIXES_USED_BEFORE_THE_SEAL.has(s)) found.push(`${f}: ${s}…`);
    }
    for (const m of text.matchAll(/['"`]((?:corpus|debian|made|raster\d+)\/[^'"`]+)['"`],\s*(?:page:\s*)?(\d+)/g)) {
      const key = pageKey(m[1], Number(m[2]));
      if (isSealedPage(m[1], Number(m[2])) && !SEALED_PAGES_USED_BEFORE_THE_SEAL.has(key)) found.push(`${f}: ${key}`);
    }
  }
  assert.deepEqual(found, [], 'write rule tests on working pages (eval/realworld/sealed.ts)');
  // The frozen lists name sealed things only (nothing working hides there).
  for (const id of SEALED_IDS_USED_BEFORE_THE_SEAL) assert.ok(sealedIds.includes(id), id);
  for (const p of SEALED_ID_PREFIXES_USED_BEFORE_THE_SEAL) assert.ok(sealedPrefixes.has(p), p);
});
