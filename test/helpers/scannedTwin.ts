/**
 * Test helper: the committed multi-column fixtures (test/fixtures/multicol/) scanned by the
 * eval's own twin generator (eval/gen/multicol/scan.ts) with a set's seed and profile, so a test
 * reads the very page the eval measured — and, for whole-pipeline tests, that page's Markdown.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { pagesToMarkdown } from '../../server/export/images';
import { analyzePage, openPdf } from '../../server/pipeline/index';
import { markFurniture } from '../../server/convert/furniture';
import { scanVariant, type ScanProfile } from '../../eval/gen/multicol/scan';
import { getOcr } from '../../server/ocr/index';
import type { OcrResult } from '../../server/ocr/types';
import { options } from '../pipeline/analyze';
import { scanPdfPage } from '../ocr/scan';

/** A fixture of test/fixtures/multicol/ by file name (the tests run from out/test/…). */
export function multicolFixture(name: string): string {
  return join(__dirname, '..', '..', '..', 'test', 'fixtures', 'multicol', name);
}

/** `fn` on the fixture scanned at 200 dpi with `seed` and `profile`, in a folder removed after. */
export async function withScannedTwin<T>(
  fixture: string,
  seed: number,
  profile: ScanProfile,
  fn: (scanPdf: string) => Promise<T>,
): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'folio-twin-'));
  try {
    const pdf = join(dir, 'scan.pdf');
    await scanVariant(fixture, pdf, seed, 200, profile);
    return await fn(pdf);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The scanned twin's pages through the whole pipeline with OCR, each page's Markdown on its own
 * (furniture decided per page, as for a page converted alone). Asserts each page went through OCR.
 */
export async function scannedTwinMarkdown(
  fixture: string,
  seed: number,
  profile: ScanProfile,
  pages: number[],
): Promise<string[]> {
  return withScannedTwin(fixture, seed, profile, async (pdf) => {
    const doc = await openPdf(pdf);
    try {
      const md: string[] = [];
      for (const p of pages) {
        const page = await analyzePage(doc, p, options({ ocr: 'auto' }));
        assert.equal(page.ocr, true, `page ${p}: the image-only page went through OCR`);
        markFurniture([page], 0);
        md.push(pagesToMarkdown([page], false));
      }
      return md;
    } finally {
      await doc.close();
    }
  });
}

/** One page of the scanned twin (rendered at the scan's 200 dpi) through the OCR engine alone. */
export async function scannedTwinOcr(
  fixture: string,
  seed: number,
  profile: ScanProfile,
  page: number,
): Promise<OcrResult> {
  return withScannedTwin(fixture, seed, profile, async (pdf) => {
    const { image } = await scanPdfPage(pdf, page, { dpi: 200 });
    return (await getOcr()).recognize(image);
  });
}
