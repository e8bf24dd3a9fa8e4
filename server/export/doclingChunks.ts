/**
 * Retrieval chunks in Docling's own shape: docling-core's `DocChunk` (what its HierarchicalChunker
 * and HybridChunker yield, and what LangChain's `DoclingLoader` and LlamaIndex's
 * `DoclingNodeParser` read), over the DoclingDocument that `toDoclingDocument` builds from the
 * same pages. A line is
 *
 *   { "text": …, "meta": { "schema_name": "docling_core.transforms.chunker.DocMeta", "version": "1.0.0",
 *       "doc_items": [ <the document's items, whole: self_ref, parent, label, prov (page_no, bbox)…> ],
 *       "headings": [ … ], "captions": [ … ], "origin": { mimetype, binary_hash, filename, uri } },
 *     "folio": { index, pages, size, unit, tableRows?, oversize? } }
 *
 * `doc_items` hold the items themselves, as docling-core serializes a chunk (`model_dump`), so a
 * chunk validates as a `DocChunk`; each item's `self_ref` (`#/texts/4`) resolves in the document
 * returned beside the chunks (the CLI writes it as `<name>.docling.json`). `headings` and
 * `captions` are left out when empty, as docling-core's `exclude_none` export does (both have
 * `min_length=1`). `folio` is Folio's own: pydantic ignores fields a model does not declare.
 * The text and the cuts are Folio's chunker's (chunks.ts): heading sections packed up to a size
 * in characters or cl100k tokens, tables split between rows, as HybridChunker sizes to a tokenizer.
 */
import type { DoclingDocument, DocumentOrigin } from '@docling/docling-core';
import type { DocItem } from '../doctags/types';
import { chunkDocumentWithSources, type ChunkOptions } from './chunks';
import { toDoclingDocument, type DoclingOptions, type ItemRefs } from './docling';
import type { ExportPage } from './pages';

export const DOC_META_SCHEMA_NAME = 'docling_core.transforms.chunker.DocMeta';
export const DOC_META_VERSION = '1.0.0';

/** One item of `meta.doc_items`: a DoclingDocument item as the document holds it. */
export type DoclingChunkItem = {
  self_ref: string;
  label: string;
  prov?: { page_no: number; bbox: { l: number; t: number; r: number; b: number; coord_origin?: string } }[];
} & Record<string, unknown>;

export interface DoclingChunk {
  text: string;
  meta: {
    schema_name: typeof DOC_META_SCHEMA_NAME;
    version: typeof DOC_META_VERSION;
    doc_items: DoclingChunkItem[];
    headings?: string[];
    captions?: string[];
    origin?: DocumentOrigin;
  };
  /** Folio's additions (not part of docling-core's model; ignored by its pydantic validation). */
  folio: {
    /** 0-based position in the document. */
    index: number;
    /** Pages the chunk's items are on. */
    pages: number[];
    /** Size of `text` in `unit`. */
    size: number;
    unit: 'chars' | 'tokens';
    /** For a piece of a split table: its body rows (0-based, end exclusive) out of `of`. */
    tableRows?: { start: number; end: number; of: number };
    /** One word or one table row alone is larger than the limit (kept whole). */
    oversize?: true;
  };
}

export interface DoclingChunksOptions extends Omit<DoclingOptions, 'refs'> {
  chunk: ChunkOptions;
}

/** Resolves a `#/texts/3`-style JSON pointer in the document; undefined when it points nowhere. */
export function resolveRef(doc: DoclingDocument, ref: string): DoclingChunkItem | undefined {
  const m = /^#\/(texts|tables|pictures|groups|key_value_items|form_items)\/(\d+)$/.exec(ref);
  if (!m) return undefined;
  const list = (doc as unknown as Record<string, unknown[] | undefined>)[m[1]!];
  return list?.[Number(m[2])] as DoclingChunkItem | undefined;
}

/**
 * The DoclingDocument of the pages and its chunks, each chunk's `doc_items` taken from that
 * document. The two belong together: write the document beside the chunks.
 */
export function doclingChunks(
  pages: readonly ExportPage[],
  opts: DoclingChunksOptions,
): { document: DoclingDocument; chunks: DoclingChunk[] } {
  const refs = new Map<DocItem, ItemRefs>();
  const { chunk: chunkOpts, ...docOpts } = opts;
  const document = toDoclingDocument(pages, { ...docOpts, refs });
  const origin = document.origin;
  const chunks = chunkDocumentWithSources(pages, chunkOpts).map(({ chunk, sources }): DoclingChunk => {
    const itemRefs: string[] = [];
    const captions: string[] = [];
    for (const s of sources) {
      const r = refs.get(s.item);
      if (!r) continue;
      if (s.part !== 'caption') for (const x of r.items) if (!itemRefs.includes(x)) itemRefs.push(x);
      if (s.part !== 'item' && r.caption) {
        if (!itemRefs.includes(r.caption)) itemRefs.push(r.caption);
        const text = s.item.caption?.text.trim();
        if (text && !captions.includes(text)) captions.push(text);
      }
    }
    const docItems = itemRefs.map((r) => resolveRef(document, r)).filter((x): x is DoclingChunkItem => x !== undefined);
    const meta: DoclingChunk['meta'] = {
      schema_name: DOC_META_SCHEMA_NAME,
      version: DOC_META_VERSION,
      doc_items: docItems,
    };
    if (chunk.headings.length > 0) meta.headings = chunk.headings;
    if (captions.length > 0) meta.captions = captions;
    if (origin) meta.origin = origin;
    const folio: DoclingChunk['folio'] = {
      index: chunk.index,
      pages: chunk.pages,
      size: chunk.size,
      unit: chunkOpts.unit,
    };
    if (chunk.tableRows) folio.tableRows = chunk.tableRows;
    if (chunk.oversize) folio.oversize = true;
    return { text: chunk.text, meta, folio };
  });
  return { document, chunks };
}

/** JSON Lines: one chunk per line. */
export function doclingChunksToJsonl(chunks: readonly DoclingChunk[]): string {
  return chunks.map((c) => JSON.stringify(c)).join('\n') + (chunks.length > 0 ? '\n' : '');
}
