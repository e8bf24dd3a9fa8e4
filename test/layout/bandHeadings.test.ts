/**
 * Issue 40, furniture on a page converted alone: a heading-styled line in the band outside the
 * text block is no heading (server/layout/stages/bandHeading.ts). Before the rule each of these
 * came out as a `##`–`####` heading:
 * - a journal's name set large and bold as a running head and the publisher's bold line at the
 *   foot (band.pdf, XeLaTeX/fancyhdr, made for this test);
 * - Philosopher's Imprint's small-caps running head "editorial board" (philosophersimprint);
 * - Res Philosophica's running head "2 Boris Veytsman, A. U. Thør, and C. O. Rëspondent";
 * - the DAFx proceedings' page number "DAFX-1" at the foot (confproc's papers).
 * Look-alikes that stay: the centred title of a title page and an h2 opening a page, both in the
 * top band of a Chromium page with small margins, a short paragraph alone in the bottom band
 * (lookalike.pdf), REVTeX's "2. Example citations" a section head near the top of apssamp's page 2,
 * and the journal page's own title and section heads. Real producers; every page cut alone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cutPage } from '../../eval/realworld/pages';
import { fileMarkdown, fixture, headings } from './convertFile';
import { withPageFile } from './pageOfTest';

const TEXDOC = '/usr/share/doc/texlive-doc/latex';

/** Markdown of page `page` of an installed document cut alone; fails naming the package when it is missing. */
async function installedPage(path: string, page: number): Promise<string> {
  assert.ok(existsSync(path), `${path} is missing: install Debian's texlive-publishers-doc (scripts/eval-deps.sh)`);
  const dir = mkdtempSync(join(tmpdir(), 'folio-band-'));
  try {
    const file = join(dir, 'page.pdf');
    cutPage(path, page, file);
    return await fileMarkdown(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a journal name set large over the text and the publisher line at the foot leave; title and sections stay', async () => {
  for (const page of [1, 2]) {
    const md = await fileMarkdown(fixture('band-furniture', 'band.pdf'), [page]);
    assert.doesNotMatch(md, /Northwind Review/, `page ${page}: the running head leaves`);
    assert.doesNotMatch(md, /Northwind Press/, `page ${page}: the publisher's foot line leaves`);
    if (page === 1) {
      assert.deepEqual(headings(md), [
        '# Measuring the Drift of Coastal Sandbars',
        '## 1 Introduction',
        '## 2 Sites and surveys',
      ]);
      assert.match(md, /Coastal sandbars move with the seasons\./);
    } else assert.match(md, /^## 3 Results$/m);
  }
});

test("running heads and a page number set as heads on real journals' pages leave", async () => {
  const imprint = await installedPage(`${TEXDOC}/philosophersimprint/sample.pdf`, 2);
  assert.doesNotMatch(imprint, /editorial board/i);
  assert.match(imprint, /^#+ .*Mission/m, 'the page keeps its section head');
  const res = await installedPage(`${TEXDOC}/resphilosophica/rpsample.pdf`, 2);
  assert.doesNotMatch(res, /Boris Veytsman, A\. U\. Thør/);
  const dafx = await installedPage(`${TEXDOC}/confproc/example/papers/p_001.pdf`, 1);
  // The body's own sentence about "page DAFX-1" stays; the page number's line leaves.
  assert.doesNotMatch(dafx, /^(#+ )?DAFX-1$/m);
  assert.ok(headings(dafx).length >= 2, 'the paper keeps its headings');
});

test('look-alikes in the bands stay: a title page title, an h2 opening a page, a short paragraph at the foot, a section head near the top', async () => {
  const p1 = await fileMarkdown(fixture('band-furniture', 'lookalike.pdf'), [1]);
  assert.deepEqual(headings(p1), ['# Field Notes on Alpine Lakes']);
  assert.match(p1, /^Samples from the first winter were lost when a freezer failed\.$/m);
  const p2 = await fileMarkdown(fixture('band-furniture', 'lookalike.pdf'), [2]);
  assert.deepEqual(headings(p2), ['## Temperature under the ice']);
  const aps = await withPageFile('debian/revtex-apssamp', 2, fileMarkdown);
  assert.match(aps, /^#+ 2\. Example citations$/m);
});
