/**
 * Issue 31 class 5, REVTeX-style tables (ruledtabular: doubled rules at top and bottom, one under
 * the header) on a real page cut alone: REVTeX's own sample (revtex-apssamp, page 5; dvips and
 * AFPL Ghostscript 8.51), with the set's person-checked tests (eval/realworld/tests.jsonl):
 * - its rules are one-pixel image masks stretched by the CTM (pdf.js: paintSolidColorImageMask),
 *   which were not read as rules, so the tables were found from alignment alone;
 * - footnote marks after cells ("(2g)ᵃ", "Snᵃ", "Cᵃ") sit between two rows by their centres and
 *   became rows of their own, split Table II in two, gave "He a" and broke Table IV into pieces;
 * - Table II's "D¹₄ₕ" headings are centred over two columns each (\multicolumn);
 * - a "FIG. 2." caption whose figure was not found took Table II from its own caption.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { materializePages } from '../../eval/realworld/pages';
import { setDir } from '../../eval/realworld/set';
import { corpusRoot } from '../../eval/corpus';
import { repoRoot } from '../../eval/repo';
import { openPdf } from '../../server/pipeline/index';
import { readPage } from '../../server/pipeline/pageContent';
import { fileMarkdown } from './convertFile';
import { failingSetTests } from './setTests';

async function withPage<T>(fn: (pdf: string) => Promise<T>): Promise<T> {
  const repo = repoRoot();
  const dir = mkdtempSync(join(tmpdir(), 'folio-revtex-'));
  try {
    const ref = { pdf: 'debian/revtex-apssamp', page: 5 };
    const pdf = materializePages([ref], dir, corpusRoot(repo), setDir(repo)).get(`${ref.pdf}#${ref.page}`)!;
    return await fn(pdf);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('rules drawn as stretched one-pixel image masks are rules', async () => {
  await withPage(async (pdf) => {
    const doc = await openPdf(pdf);
    try {
      const raw = await readPage(await doc.doc.getPage(1), 1);
      const horizontal = raw.content.rules.filter((r) => r.y1 - r.y0 <= 3 && r.x1 - r.x0 >= 100);
      // Three ruledtabular tables: a doubled top rule, a header rule, a doubled bottom rule each.
      assert.ok(horizontal.length >= 12, `${horizontal.length} horizontal rules`);
    } finally {
      await doc.close();
    }
  });
});

test('footnote marks stay in their cells; the ruled tables are whole', async () => {
  const ids = ['aps-p5-02', 'aps-p5-03', 'aps-p5-04', 'aps-p5-05', 'aps-p5-13', 'aps-p5-14', 'aps-p5-15'];
  const { failed, ran } = await failingSetTests(ids);
  assert.equal(ran.length, ids.length);
  assert.deepEqual(failed, []);
});

test('a heading centred over two columns spans them; a figure caption does not take the table', async () => {
  const md = await withPage((pdf) => fileMarkdown(pdf));
  // Table II's first header row: the corner, then D¹₄ₕ and D⁵₄ₕ over two columns each.
  assert.match(md, /<tr><td><\/td><th colspan="2">D14h<\/th><th colspan="2">D54h<\/th><\/tr>/);
  const { failed } = await failingSetTests(['aps-p5-16']);
  assert.deepEqual(failed, []);
});
