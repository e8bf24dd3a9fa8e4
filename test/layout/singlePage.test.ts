/**
 * Issue 23, real-world pages converted one page at a time: furniture recognised without
 * neighbouring pages (class 5), and paragraphs that Chromium prints as several text runs kept
 * whole. Real PDFs from real producers: Debian's valgrind and bzip2 manuals (DocBook → PDF),
 * docling's Word/InDesign samples and the PDF Association's PowerPoint slides from the shared
 * corpus, each page cut alone as the real-world set does; a Chromium-printed HTML page
 * (test/fixtures/chromium-paragraphs). The page checks are the set's own person-checked tests.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTest, type PageTest } from '../../eval/realworld/checks';
import { materializePages } from '../../eval/realworld/pages';
import { readTests, setDir, TESTS_FILE } from '../../eval/realworld/set';
import { corpusRoot } from '../../eval/corpus';
import { repoRoot } from '../../eval/repo';
import { fileMarkdown, fixture } from './convertFile';

test('Chromium-printed paragraphs stay whole (a run broken at "ﬁ" is no column gutter)', async () => {
  const md = await fileMarkdown(fixture('chromium-paragraphs', 'paragraphs.pdf'));
  const paras = md.split('\n\n').filter((p) => p.startsWith('Paragraph '));
  assert.equal(paras.length, 10, md);
  for (const p of paras) {
    assert.match(
      p,
      /^Paragraph \d of section \d\. The committee reviewed the figures for the quarter and agreed that the reading order of a printed page must survive conversion into Markdown without losing a line\.$/,
      md,
    );
  }
  assert.ok(!md.split('\n').some((l) => l.endsWith('reviewed the')), md);
});

/** The set's tests with these ids, run on Folio's Markdown of their page cut alone; the failures. */
async function failingSetTests(
  ids: string[],
  keep: (t: PageTest) => boolean = () => true,
): Promise<{ failed: string[]; ran: PageTest[] }> {
  const repo = repoRoot();
  const tests = readTests(join(setDir(repo), TESTS_FILE)).filter((t) => ids.includes(t.id) && keep(t));
  const dir = mkdtempSync(join(tmpdir(), 'folio-single-'));
  try {
    const files = materializePages(tests, dir, corpusRoot(repo), setDir(repo));
    const failed: string[] = [];
    for (const t of tests) {
      const r = runTest(t, await fileMarkdown(files.get(`${t.pdf}#${t.page}`)!));
      if (!r.passed) failed.push(`${t.id}: ${r.why}`);
    }
    return { failed, ran: tests };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("a bold heading beside a paragraph's last line in the other column is a heading, not a table cell; bold capitals a size under the body too", async () => {
  // REVTeX (APS) "ACKNOWLEDGMENTS" (9 pt bold capitals over a 10 pt body); the MORAN arXiv paper's
  // "3.2. Attention-based Sequence Recognition Network"; elsarticle's "2. Evanescent vs. …".
  const ids = ['aps-p6-01', 'moran-p5-03', 'els5p-p2-01'];
  const { failed, ran } = await failingSetTests(ids);
  assert.equal(ran.length, ids.length);
  assert.deepEqual(failed, []);
});

/** Pages whose running heads, page numbers and journal footers are furniture, with the set's tests for them. */
const PAGES = ['valgrind-p20-', 'bzip2-p10-', 'amt-p1-', 'legalaid-p1-', 'slides-p2-'];
/** Not recognised on one page: the slide's deck title over every slide (a large heading there). */
const NOT_YET = ['slides-p2-06'];

test('single-page furniture: running heads set right, chapter–page numbers, footer rows and © lines leave the body', async () => {
  const repo = repoRoot();
  const tests = readTests(join(setDir(repo), TESTS_FILE)).filter(
    (t) => PAGES.some((p) => t.id.startsWith(p)) && !NOT_YET.includes(t.id),
  );
  assert.equal(new Set(tests.map((t) => `${t.pdf}#${t.page}`)).size, PAGES.length);
  const dir = mkdtempSync(join(tmpdir(), 'folio-single-'));
  try {
    const files = materializePages(tests, dir, corpusRoot(repo), setDir(repo));
    const failed: string[] = [];
    let furniture = 0;
    for (const t of tests) {
      const md = await fileMarkdown(files.get(`${t.pdf}#${t.page}`)!);
      const r = runTest(t, md);
      if (t.class.includes('furniture')) furniture++;
      // Every furniture test, and the body tests that pass on main (the body stays).
      if (!r.passed && (t.class.includes('furniture') || t.type !== 'order')) failed.push(`${t.id}: ${r.why}`);
    }
    assert.ok(furniture >= 6, `${furniture} furniture tests`);
    assert.deepEqual(failed, []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('footnotes set in Computer Modern 8 pt are prose, not one formula; a running head set low is furniture', async () => {
  // REVTeX's title footnotes (CMR8: "Also at Physics Department, XYZ University." came out as
  // `$\dagger\mathrm{Also}…$`); amsmath testmath's running heads at 12 % of the page, below the
  // header band ("Sample paper for the amsmath package" … "3"; "REFERENCES" … "41"), and
  // aomart's "SAMPLE PAPER" … "19", which were hidden as a formula before.
  const ids = ['aps-p1-06', 'aps-p1-07', 'aip-p1-03', 'testmath-p3-01', 'testmath-p41-01', 'aom-p3-01'];
  const { failed, ran } = await failingSetTests(ids);
  assert.equal(ran.length, ids.length);
  assert.deepEqual(failed, []);
});

test('section heads in regular capitals centred on the page, or numbered in a small-caps font, are headings', async () => {
  // AASTeX 6.31 sets its section heads in CMR10 capitals at the body size, not bold, centred; the
  // draft's line numbers in the margin share each line's row, so row mates cannot rule them out.
  // PMLR sets "1.1.1. Sub-sub-sections" in CMCSC10 at the body size, flush left.
  const ids = ['aas-p1-06', 'aas-p1-08', 'pmlr-p1-07'];
  const { failed, ran } = await failingSetTests(ids);
  assert.equal(ran.length, ids.length);
  assert.deepEqual(failed, []);
});

test('a last row standing apart above the footer band is a furniture candidate (elsarticle "Preprint submitted to Elsevier … June 8, 2018", PMLR "© 2010 …")', async () => {
  // elsarticle sets its preprint footer at 91.8 % of the page and PMLR its copyright line at the
  // foot of the text block: both above the 8 % footer band, so they had stayed body text.
  const ids = ['els5p-p1-02', 'els5p-p1-03', 'pmlr-p1-03'];
  const { failed, ran } = await failingSetTests(ids);
  assert.equal(ran.length, ids.length);
  assert.deepEqual(failed, []);
});
