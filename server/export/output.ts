/**
 * The one dispatcher from a finished conversion to an output's text, for `folio convert` (in
 * process and through the queue) and the MCP tool. What each format is built from is declared in
 * common/requestModel.ts `OUTPUT_FORMATS` (`from`); this file follows it. The extension follows
 * the same field (src/commands/exportFile.ts): formats built from pages go to `folio/export`.
 *
 * The page formats' renderer is passed in rather than imported: the CLI loads server/export (with
 * js-tiktoken's megabyte of ranks) as a separate bundle only when a page format is asked for, so
 * this file imports types alone from it.
 */
import type { ConvertSummary, PageResult } from '../../common/protocol';
import { OUTPUT_FORMATS, isPagesFormat, type OutputFormat } from '../../common/requestModel';
import { summaryOutput } from '../../common/summaryOutput';
import type { ExportOutput, ExportRequest } from './index';

export interface OutputRequest extends Omit<ExportRequest, 'format' | 'pages'> {
  format: OutputFormat;
  summary: ConvertSummary;
  /** The page results: read by the page formats and by Markdown with embedded pictures. */
  pages: readonly PageResult[];
}

/** server/export/index.ts `renderExport`, or a lazy loader's copy of it. */
export type PageRenderer = (req: ExportRequest) => ExportOutput;

/**
 * Whether the caller must keep the page results for `renderOutput` (they are otherwise dropped as
 * they arrive): the formats not built from the summary alone, and Markdown with embedded pictures.
 */
export function needsPages(format: OutputFormat, images: ExportRequest['images']): boolean {
  return OUTPUT_FORMATS[format].from !== 'summary' || images === 'embed';
}

/**
 * The output's text (and, for Docling-shaped chunks, the DoclingDocument their `doc_items` refer
 * to). The summary's formats are common/summaryOutput.ts's; `json` writes the summary as given,
 * so the caller attaches the pages.
 */
export function renderOutput(req: OutputRequest, renderPages: () => PageRenderer): ExportOutput {
  const { format, summary, ...rest } = req;
  // Embedded pictures are read from the pages' crops, so such Markdown is rendered from the pages.
  if (isPagesFormat(format) || (format === 'md' && req.images === 'embed')) return renderPages()({ ...rest, format });
  return { text: summaryOutput(format, summary), warnings: [] };
}
