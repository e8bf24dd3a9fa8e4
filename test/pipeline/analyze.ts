/** Test helper: run the pipeline over every page of a corpus PDF, furniture decided as the lead's orchestrator does. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzePage, openPdf } from '../../server/pipeline/index';
import { markFurniture } from '../../server/convert/furniture';
import type { AnalyzeOptions, PageAnalysis } from '../../server/model/analysis';
import type { DocItem } from '../../server/model/items';
import { corpusPath } from '../helpers/corpus';

export function options(extra: Partial<AnalyzeOptions> = {}): AnalyzeOptions {
  return { ocr: 'never', renderImages: false, scale: 2, cacheDir: mkdtempSync(join(tmpdir(), 'folio-pl-')), ...extra };
}

export async function analyzeCorpusPdf(
  rel: string,
  extra: Partial<AnalyzeOptions> = {},
  pagesWanted?: number[],
): Promise<PageAnalysis[]> {
  const doc = await openPdf(corpusPath(rel));
  try {
    const opts = options(extra);
    const pages: PageAnalysis[] = [];
    const list = pagesWanted ?? Array.from({ length: doc.numPages }, (_, i) => i + 1);
    for (const p of list) pages.push(await analyzePage(doc, p, opts));
    for (let i = 0; i < pages.length; i++) markFurniture(pages.slice(Math.max(0, i - 3), i + 4), Math.min(i, 3));
    return pages;
  } finally {
    await doc.close();
  }
}

/** Items of all pages, nested captions included, in reading order. */
export function allItems(pages: PageAnalysis[]): DocItem[] {
  return pages.flatMap((p) => p.items.flatMap((i) => (i.caption ? [i, i.caption] : [i])));
}

export function bodyText(pages: PageAnalysis[]): string {
  return allItems(pages)
    .filter((i) => i.cls !== 'page_header' && i.cls !== 'page_footer')
    .map((i) => (i.table ? i.table.map((r) => r.map((c) => c.text).join(' | ')).join('\n') : i.text))
    .join('\n');
}

/** Asserts the snippets appear in this order; returns their positions. */
export function positions(text: string, snippets: string[]): number[] {
  return snippets.map((s) => {
    const at = text.indexOf(s);
    if (at < 0) throw new Error(`"${s}" not found in the output:\n${text.slice(0, 3000)}`);
    return at;
  });
}
