/**
 * Real page content for the table tests: the pipeline's own pdf.js extraction
 * (server/pipeline/pageContent.ts) on a corpus PDF, so the tests see exactly what
 * `detectTables` gets in production.
 */
import { openPdf } from '../../server/pdf/open';
import { readPage } from '../../server/pipeline/pageContent';
import type { PageContent } from '../../server/model/content';

export async function pageContents(path: string, maxPages = 20): Promise<PageContent[]> {
  const pdf = await openPdf(path);
  try {
    const out: PageContent[] = [];
    for (let n = 1; n <= Math.min(pdf.numPages, maxPages); n++) {
      const page = await pdf.doc.getPage(n);
      out.push((await readPage(page, n)).content);
      page.cleanup();
    }
    return out;
  } finally {
    await pdf.close();
  }
}
