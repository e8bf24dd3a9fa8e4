/**
 * Issue 31: centred lines under a title. A title's short last line centred under the line before
 * goes on with the title (papertex's boxed title); an affiliation ending in its note mark ends its
 * block (MORAN's two affiliations), and on an OCR-read page, where no weight tells a title from
 * the by-line under it, a capital line after the jump starts its own (TAMReview's author). Real pages from the shared corpus and Debian's TeX Live
 * documentation.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { documentToMarkdown } from '../../server/doctags/markdown';
import { corpusPath } from '../helpers/corpus';
import { analyzeCorpusPdf } from '../pipeline/analyze';
import { fileMarkdown } from './convertFile';
import { failingSetTests } from './setTests';

/** The Markdown's paragraphs (blocks between blank lines). */
const paragraphs = (md: string) => md.split(/\n{2,}/).map((p) => p.trim());

test('two centred affiliations under the authors stay two paragraphs (MORAN p1)', async () => {
  const md = await fileMarkdown(corpusPath('opendataloader-samples/1901.03003.pdf'), [1]);
  const paras = paragraphs(md);
  const scut = paras.find((p) => p.includes('SCUT-Zhuhai Institute'));
  assert.equal(scut, 'SCUT-Zhuhai Institute of Modern Industrial Innovation‡', md.slice(0, 600));
  assert.ok(
    paras.some((p) => p.endsWith('South China University of Technology†')),
    md.slice(0, 600),
  );
});

test("an OCR-read title and the author's line centred under it stay apart (TAMReview p2)", async () => {
  // The page's Cambria has no Unicode map, so the page is read by OCR: no weight tells title
  // from author, only the centred author line's capital start does.
  const pages = await analyzeCorpusPdf('pdfjs-test-pdfs/TAMReview.pdf', { ocr: 'auto' }, [2]);
  assert.equal(pages[0]!.ocr, true, 'the page is read by OCR');
  const md = documentToMarkdown(pages.map((p) => p.items));
  const paras = paragraphs(md);
  assert.ok(
    paras.some((p) => /Origins, Developments and Future Directions$/.test(p)),
    md.slice(0, 600),
  );
  assert.ok(
    paras.some((p) => p.startsWith('M Yasser Chuttur')),
    md.slice(0, 600),
  );
});

test("look-alike: a boxed title's lower-case last line centred under it stays in the title (papertex p3)", async () => {
  const { failed, ran } = await failingSetTests(['papertex-p3-03', 'moran-p1-10']);
  assert.equal(ran.length, 2);
  assert.deepEqual(failed, []);
});
