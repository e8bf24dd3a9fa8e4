/**
 * The last check before `folio convert` writes an output, in-process and through the queue: an
 * export that lost the converted content is an error, never an empty file with exit code 0
 * (issue #22: `--queue --format docling` wrote a DoclingDocument with no texts and no pages,
 * `--format chunks` an empty file). A document whose pages hold nothing is not affected: its
 * empty export says what the pages say.
 */
import type { ConvertSummary } from '../../common/protocol';
import type { OutputFormat } from './args';

/** A message when `text` (the rendered output) is empty although the pages converted hold content; undefined when it is fine. */
export function exportProblem(format: OutputFormat, text: string, summary: ConvertSummary): string | undefined {
  const done = summary.pagesDone.length;
  if (done === 0) return undefined;
  const hasText = summary.markdown.trim() !== '';
  const lost = `the ${format} export of ${done} converted page(s) came out empty`;
  const what = 'nothing was written (a bug in Folio: please report it with the file)';
  if (format === 'docling') {
    let doc: { pages?: Record<string, unknown>; texts?: unknown[]; tables?: unknown[]; pictures?: unknown[] };
    try {
      doc = JSON.parse(text) as typeof doc;
    } catch {
      return `the docling export is not JSON; ${what}`;
    }
    const items = (doc.texts?.length ?? 0) + (doc.tables?.length ?? 0) + (doc.pictures?.length ?? 0);
    if (Object.keys(doc.pages ?? {}).length === 0 || (hasText && items === 0))
      return `${lost} (${Object.keys(doc.pages ?? {}).length} pages, ${items} items); ${what}`;
    return undefined;
  }
  if (format === 'json') {
    const pages = (JSON.parse(text) as { pages?: unknown[] }).pages;
    return pages && pages.length > 0 ? undefined : `${lost} (no pages); ${what}`;
  }
  return hasText && text.trim() === '' ? `${lost}; ${what}` : undefined;
}
