/**
 * Issue 31, a page converted alone: a university's logo at an exam's foot, its name and faculty
 * drawn as vector outlines (read by OCR, missingText.ts) beside the page number "1/9". The logo's
 * three lines make one block as tall as three band lines; the page number on its row made it a
 * footer as if it were a running foot set left and right, and "Universiteit Antwerpen" was lost.
 * The page number itself stays furniture. Look-alike: a journal's foot line beside its page
 * reference, one band line set left and right ("Journal of Heat Transfer … PREPRINT FOR REVIEW /
 * 1", asmejour), stays furniture. Real pages from Debian's TeX Live documentation, the real-world
 * set's person-checked tests, a real PaddleOCR session.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzePage, openPdf } from '../../server/pipeline/index';
import { markFurniture } from '../../server/convert/furniture';
import { documentToMarkdown } from '../../server/doctags/markdown';
import { runTest } from '../../eval/realworld/checks';
import { materializePages } from '../../eval/realworld/pages';
import { readTests, setDir, TESTS_FILE } from '../../eval/realworld/set';
import { corpusRoot } from '../../eval/corpus';
import { repoRoot } from '../../eval/repo';
import { options } from './analyze';
import type { PageAnalysis } from '../../server/model/analysis';
import type { DocItem } from '../../server/model/items';

/** Logo text that stays, the page number and the journal's foot line that leave, the date that stays. */
const IDS = ['ua-exam-p1-07', 'ua-exam-p1-01', 'ua-exam-p1-02', 'asme-p1-02', 'asme-p1-03'];

test('a page alone: a logo block beside the page number at the foot stays; the page number and a one-line running foot leave', async () => {
  const repo = repoRoot();
  const tests = readTests(join(setDir(repo), TESTS_FILE)).filter((t) => IDS.includes(t.id));
  assert.equal(tests.length, IDS.length);
  const dir = mkdtempSync(join(tmpdir(), 'folio-logo-'));
  try {
    const files = materializePages(tests, dir, corpusRoot(repo), setDir(repo));
    const markdown = new Map<string, string>();
    const failed: string[] = [];
    for (const t of tests) {
      const key = `${t.pdf}#${t.page}`;
      if (!markdown.has(key)) {
        const doc = await openPdf(files.get(key)!);
        try {
          const page = await analyzePage(doc, 1, options({ ocr: 'auto' }));
          markFurniture([page], 0);
          if (t.pdf.includes('uantwerpen')) {
            const logo = page.items.find((i) => i.text.startsWith('Universiteit Antwerpen'));
            assert.equal(logo?.cls, 'text', `the logo's words are read and kept: ${logo?.cls}`);
            assert.equal(page.items.find((i) => i.text === '1/9')?.cls, 'page_footer');
          }
          markdown.set(key, documentToMarkdown([page.items]));
        } finally {
          await doc.close();
        }
      }
      const r = runTest(t, markdown.get(key)!);
      if (!r.passed) failed.push(`${t.id}: ${r.why}`);
    }
    assert.deepEqual(failed, []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('row mates at the foot: one band line beside the page number leaves; a block over twice its height stays', () => {
  const item = (text: string, x0: number, x1: number, y0: number, y1: number): DocItem => ({
    cls: 'text',
    text,
    bbox: { x0, y0, x1, y1 },
    grid: [0, 0, 0, 0],
  });
  const page = (items: DocItem[]): PageAnalysis => ({
    page: 1,
    width: 595,
    height: 842,
    items,
    furnitureCandidates: items.map((_, i) => i),
    ocr: false,
    rotation: 0,
    warnings: [],
  });
  // The exam's geometry: the logo's three lines (791–820) beside "1/9" (794–805).
  const logo = page([
    item('Universiteit Antwerpen Faculteit Toegepaste Ingenieurswetenschappen', 103, 195, 791, 820),
    item('1/9', 290, 305, 794, 805),
  ]);
  markFurniture([logo], 0);
  assert.deepEqual(
    logo.items.map((i) => i.cls),
    ['text', 'page_footer'],
  );
  // A journal's name on the page number's row, one line of about its height: a running foot.
  const foot = page([item('Journal of Heat Transfer', 60, 160, 794, 804), item('1/9', 290, 305, 794, 805)]);
  markFurniture([foot], 0);
  assert.deepEqual(
    foot.items.map((i) => i.cls),
    ['page_footer', 'page_footer'],
  );
});
