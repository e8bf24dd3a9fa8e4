/**
 * The fuzzer's seed documents: a generated uncompressed 3-page PDF (every page's objects are
 * visible, so deleting one damages one page) and a few small real PDFs from the corpus made by
 * different producers (LibreOffice, xelatex, a pdf.js test file).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makePdf, textPage } from '../pdf/makePdf';

export const GENERATED = 'generated:3-pages.pdf';

export const CORPUS_SOURCES = [
  'docling-src-rendered/docx/lorem_ipsum.docx.pdf',
  'docling-src-rendered/docx/unit_test_headers.docx.pdf',
  'selfmade-example/sample.xelatex-2col.pdf',
  'pdfjs-test-pdfs/doc_1_3_pages.pdf',
];

export function generatedThreePages(): Buffer {
  return makePdf([1, 2, 3].map((n) => textPage(n, 12)));
}

export function sourceReader(corpus: string): (path: string) => Buffer {
  const cache = new Map<string, Buffer>();
  return (p) => {
    let b = cache.get(p);
    if (!b) cache.set(p, (b = p === GENERATED ? generatedThreePages() : readFileSync(join(corpus, p))));
    return b;
  };
}
