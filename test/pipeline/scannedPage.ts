/**
 * A page of a born-digital fixture "scanned" (test/ocr/scan.ts: rendered, skewed, noised), written
 * into an image-only PDF as a JPEG, and analysed through the whole pipeline with OCR.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { analyzePage, openPdf } from '../../server/pipeline/index';
import { markFurniture } from '../../server/convert/furniture';
import type { PageAnalysis } from '../../server/model/analysis';
import { imagePdf } from '../../eval/gen/multicol/scan';
import { scanPdfPage, type ScanOptions } from '../ocr/scan';
import { options } from './analyze';

export async function analyzeScannedPage(
  file: string,
  pageNo: number,
  scanOptions: ScanOptions,
): Promise<PageAnalysis> {
  const scan = await scanPdfPage(file, pageNo, scanOptions);
  const { width, height, data } = scan.image;
  const jpeg = await sharp(Buffer.from(data.buffer, data.byteOffset, data.length), {
    raw: { width, height, channels: 4 },
  })
    .greyscale()
    .jpeg({ quality: 80 })
    .toBuffer();
  const dir = mkdtempSync(join(tmpdir(), 'folio-scanned-'));
  try {
    const pdf = join(dir, 'scan.pdf');
    writeFileSync(pdf, imagePdf([{ jpeg, width, height }]));
    const doc = await openPdf(pdf);
    try {
      const page = await analyzePage(doc, 1, options({ ocr: 'auto' }));
      assert.equal(page.ocr, true, 'the image-only page went through OCR');
      markFurniture([page], 0);
      return page;
    } finally {
      await doc.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
