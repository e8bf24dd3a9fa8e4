/** Test helper: a PDF converted as the CLI does (every page, furniture across neighbours, document Markdown). */
import { join } from 'node:path';
import { analyzePage, openPdf } from '../../server/pipeline/index';
import { markFurniture } from '../../server/convert/furniture';
import type { PageAnalysis } from '../../server/model/analysis';
import { documentToMarkdown } from '../../server/doctags/markdown';
import { options } from '../pipeline/analyze';

/** A file under test/fixtures (the compiled test runs from out/test/layout). */
export function fixture(...parts: string[]): string {
  return join(__dirname, '..', '..', '..', 'test', 'fixtures', ...parts);
}

export async function analyzeFile(file: string, pagesWanted?: number[]): Promise<PageAnalysis[]> {
  const doc = await openPdf(file);
  try {
    const opts = options();
    const pages: PageAnalysis[] = [];
    for (const p of pagesWanted ?? Array.from({ length: doc.numPages }, (_, i) => i + 1))
      pages.push(await analyzePage(doc, p, opts));
    for (let i = 0; i < pages.length; i++) markFurniture(pages.slice(Math.max(0, i - 3), i + 4), Math.min(i, 3));
    return pages;
  } finally {
    await doc.close();
  }
}

export async function fileMarkdown(file: string, pagesWanted?: number[]): Promise<string> {
  return documentToMarkdown((await analyzeFile(file, pagesWanted)).map((p) => p.items));
}

/** The ATX headings of a Markdown text, as "## text". */
export function headings(md: string): string[] {
  return md.split('\n').filter((l) => /^#{1,6} /.test(l));
}
