/**
 * Small, valid PDFs for edge cases the corpus lacks (a 0-page document, a 20,000 pt page), in
 * the shape the pipeline tests use; written by the shared test PDF writer.
 */
import { makePdf as writePdf } from '../helpers/pdfWriter';

export function makePdf(opts: { pages: { width: number; height: number; text?: string }[] }): Buffer {
  return writePdf(
    opts.pages.map((p) => ({ width: p.width, height: p.height, lines: p.text ? [p.text] : [], fontSize: 24 })),
  );
}
