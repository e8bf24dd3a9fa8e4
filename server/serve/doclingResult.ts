/**
 * A finished task in docling-serve's response shapes (v1, docling-serve 1.31.0):
 * `ExportDocumentResponse` (`filename`, `md_content`, `json_content` — a DoclingDocument —,
 * `html_content`, `text_content`, `doctags_content`), `ConvertDocumentResponse`, and the chunk
 * items of `ChunkDocumentResponse`. Built from the converted pages through server/export, the
 * same exporters the CLI's `--format docling` and `--format chunks` use.
 */
import type { ExportPage } from '../export/pages';
import { exportPages } from '../export';
import { toDoclingDocument, type DoclingOptions } from '../export/docling';
import { doclingChunks } from '../export/doclingChunks';
import { pagesToMarkdown, type ImageMode } from '../export/images';
import { cl100kCounter } from '../export/chunks';
import type { ChunkingRequest, ImageExportMode, RequestOptions } from './doclingOptions';
import type { TaskResult, TaskStatusView } from './tasks';
import { errorItem, type ErrorItem } from './doclingErrors';

/** One input document of a request: what the response says about where it came from. */
export interface DocSource {
  taskId: string;
  /** The client's file name (or the URL's last segment). */
  name: string;
  mimetype: string;
  /** docling-core's `binary_hash` of the bytes received. */
  binaryHash: number;
  /** The stored upload's own file name (generated), which the client never saw: errors name `name` instead. */
  stored?: string;
}

export interface ExportDocument {
  filename: string;
  md_content: string | null;
  json_content: unknown;
  html_content: string | null;
  text_content: string | null;
  doctags_content: string | null;
}

const MODE: Record<ImageExportMode, ImageMode> = { placeholder: 'none', embedded: 'embed', referenced: 'link' };

function stem(name: string): string {
  return name.replace(/\.[^.]+$/, '');
}

function doclingOptions(src: DocSource, dir: string): DoclingOptions {
  return {
    name: stem(src.name),
    baseDir: dir,
    picturesRoot: dir,
    origin: { filename: src.name, mimetype: src.mimetype, binaryHash: src.binaryHash },
  };
}

/** Plain text: each item's text in reading order, page headers and footers left out (docling's text export has no markup). */
function plainText(pages: readonly ExportPage[], keepFurniture: boolean): string {
  const out: string[] = [];
  for (const p of pages) {
    for (const it of p.items) {
      if (!keepFurniture && (it.cls === 'page_header' || it.cls === 'page_footer')) continue;
      if (it.text.trim() && !it.table) out.push(it.text.trim());
      if (it.table) out.push(it.table.map((row) => row.map((c) => c.text).join('\t')).join('\n'));
      if (it.caption?.text.trim()) out.push(it.caption.text.trim());
    }
  }
  return out.length > 0 ? out.join('\n\n') + '\n' : '';
}

/**
 * The document's outputs as requested. `dir` is the task's result folder (its pictures are read
 * from there, through server/export's checks).
 */
export function exportDocument(
  r: TaskResult,
  src: DocSource,
  dir: string,
  o: RequestOptions,
): { document: ExportDocument; warnings: string[] } {
  const keep = false;
  const { pages, warnings } = exportPages({
    pages: r.pages,
    images: MODE[o.imageMode],
    imagesBaseDir: dir,
    picturesRoot: dir,
  });
  const want = new Set(o.toFormats);
  let md: string | null = null;
  if (want.has('md')) {
    md = o.pageBreak
      ? pages
          .map((p) => pagesToMarkdown([p], keep).trimEnd())
          .filter((m) => m.length > 0)
          .join(`\n\n${o.pageBreak}\n\n`) + '\n'
      : pagesToMarkdown(pages, keep);
  }
  return {
    document: {
      filename: src.name,
      md_content: md,
      json_content: want.has('json') ? toDoclingDocument(pages, doclingOptions(src, dir)) : null,
      html_content: null,
      text_content: want.has('text') ? plainText(pages, keep) : null,
      doctags_content: want.has('doctags') ? r.summary.doctags : null,
    },
    warnings,
  };
}

/** Task state → docling's ConversionStatus (Folio adds `cancelled`). */
export function conversionStatus(r: TaskResult | undefined, s: TaskStatusView): string {
  if (s.state === 'success') return r && r.summary.pageErrors.length > 0 ? 'partial_success' : 'success';
  return s.state;
}

/** docling's `errors[]` of one document: its pages' errors, then the document's own. */
export function errorItems(r: TaskResult | undefined, s: TaskStatusView): ErrorItem[] {
  const items = (r?.summary.pageErrors ?? []).map((e) => errorItem(e.kind, `page ${e.page}: ${e.message}`, e.page));
  if (s.error) items.push(errorItem(s.errorKind ?? 'internal', s.error));
  return items;
}

/** The cl100k counter, made once (its rank table is large). */
let counter: ((text: string) => number) | undefined;

/** docling-serve's `ChunkedDocumentResultItem`s of one document (HybridChunker-shaped). */
export function chunkItems(
  r: TaskResult,
  src: DocSource,
  dir: string,
  c: ChunkingRequest,
): { items: Record<string, unknown>[]; document: unknown } {
  const countTokens = (counter ??= cl100kCounter());
  const { pages } = exportPages({ pages: r.pages, images: 'none', imagesBaseDir: dir, picturesRoot: dir });
  const { document, chunks } = doclingChunks(pages, {
    ...doclingOptions(src, dir),
    chunk: { maxSize: c.maxTokens, unit: 'tokens', countTokens, perItem: c.chunker === 'hierarchical' },
  });
  const items = chunks.map((ch) => {
    const headings = ch.meta.headings ?? [];
    // docling-serve's `text` is the chunker's contextualize(): the headings, then the chunk.
    const text = [...headings, ch.text].join('\n');
    return {
      filename: src.name,
      chunk_index: ch.folio.index,
      text,
      raw_text: c.includeRawText ? ch.text : null,
      num_tokens: countTokens(text),
      headings: headings.length > 0 ? headings : null,
      captions: null,
      doc_items: ch.meta.doc_items.map((d) => d.self_ref),
      page_numbers: ch.folio.pages,
      metadata: { origin: ch.meta.origin ?? null, doc_items: ch.meta.doc_items },
    };
  });
  return { items, document };
}
