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
import { analyzePage, openPdf } from '../../server/pipeline/index';
import { markFurniture } from '../../server/convert/furniture';
import { documentToMarkdown } from '../../server/doctags/markdown';
import { failingSetTests } from '../layout/setTests';
import { options } from './analyze';
import type { PageAnalysis } from '../../server/model/analysis';
import type { DocItem } from '../../server/model/items';

/** Logo text that stays, the page number and the journal's foot line that leave, the date that stays. */
const IDS = ['ua-exam-p1-07', 'ua-exam-p1-01', 'ua-exam-p1-02', 'asme-p1-02', 'asme-p1-03'];

test('a page alone: a logo block beside the page number at the foot stays; the page number and a one-line running foot leave', async () => {
  const { failed, ran } = await failingSetTests(IDS, async (file, t) => {
    const doc = await openPdf(file);
    try {
      const page = await analyzePage(doc, 1, options({ ocr: 'auto' }));
      markFurniture([page], 0);
      if (t.pdf.includes('uantwerpen')) {
        const logo = page.items.find((i) => i.text.startsWith('Universiteit Antwerpen'));
        assert.equal(logo?.cls, 'text', `the logo's words are read and kept: ${logo?.cls}`);
        assert.equal(page.items.find((i) => i.text === '1/9')?.cls, 'page_footer');
      }
      return documentToMarkdown([page.items]);
    } finally {
      await doc.close();
    }
  });
  assert.equal(ran.length, IDS.length);
  assert.deepEqual(failed, []);
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
