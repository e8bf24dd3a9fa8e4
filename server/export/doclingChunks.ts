/**
 * Retrieval chunks in Docling's own shape: docling-core's `DocChunk` (what its HierarchicalChunker
 * and HybridChunker yield, and what LangChain's `DoclingLoader` and LlamaIndex's
 * `DoclingNodeParser` read), over the DoclingDocument that `toDoclingDocument` builds from the
 * same pages. A line is
 *
 *   { "text": …, "meta": { "schema_name": "docling_core.transforms.chunker.DocMeta", "version": "1.0.0",
 *       "doc_items": [ <the items' base fields: self_ref, parent, children, content_layer, label, prov> ],
 *       "headings": [ … ], "origin": { mimetype, binary_hash, filename, uri } },
 *     "folio": { index, pages, size, unit, tableRows?, oversize? } }
 *
 * `doc_items` hold only the fields of docling-core's base `DocItem`, as its chunkers export a
 * chunk: `DocMeta.doc_items` is `list[DocItem]` and `DocItem` forbids other fields, so an item's
 * `text` or `orig` would make `DocChunk.model_validate_json` reject the line. Each `self_ref`
 * (`#/texts/4`) resolves in the document returned beside the chunks (the CLI writes it as
 * `<name>.docling.json`), where the whole item is. `headings` is left out when empty, as
 * docling-core's `exclude_none` export does (`min_length=1`); the deprecated `captions` is not
 * written, as docling-core's chunkers no longer write it (the caption is in the chunk's text).
 * `folio` is Folio's own: `DocChunk` allows fields it does not declare at its top level.
 * The text and the cuts are Folio's chunker's (chunks.ts): heading sections packed up to a size
 * in characters or cl100k tokens, headings included, as HybridChunker counts.
 */
import type { DoclingDocument, DocumentOrigin } from '@docling/docling-core';
import type { DocItem } from '../model/items';
import { chunkDocumentWithSources, type ChunkOptions } from './chunks';
import { toDoclingDocument, type DoclingOptions, type ItemRefs } from './docling';
import type { ExportPage } from './pages';

export const DOC_META_SCHEMA_NAME = 'docling_core.transforms.chunker.DocMeta';
export const DOC_META_VERSION = '1.0.0';

/** One item of `meta.doc_items`: docling-core's base `DocItem` fields of a document item. */
export interface DoclingChunkItem {
  self_ref: string;
  parent?: { $ref: string };
  children?: { $ref: string }[];
  content_layer?: string;
  meta?: unknown;
  label: string;
  prov?: {
    page_no: number;
    bbox: { l: number; t: number; r: number; b: number; coord_origin?: string };
    charspan?: [number, number];
  }[];
  source?: unknown[];
  comments?: unknown[];
}

/** The fields docling-core's `DocItem` declares (it forbids any other in a chunk). */
const DOC_ITEM_FIELDS = [
  'self_ref',
  'parent',
  'children',
  'content_layer',
  'meta',
  'label',
  'prov',
  'source',
  'comments',
] as const;

/** A document item cut down to `DocItem`'s fields, in docling-core's field order. */
export function baseDocItem(item: Record<string, unknown>): DoclingChunkItem {
  const out: Record<string, unknown> = {};
  for (const k of DOC_ITEM_FIELDS) if (item[k] !== undefined) out[k] = item[k];
  return out as unknown as DoclingChunkItem;
}

export interface DoclingChunk {
  text: string;
  meta: {
    schema_name: typeof DOC_META_SCHEMA_NAME;
    version: typeof DOC_META_VERSION;
    doc_items: DoclingChunkItem[];
    headings?: string[];
    origin?: DocumentOrigin;
  };
  /** Folio's additions (not part of docling-core's model; ignored by its pydantic validation). */
  folio: {
    /** 0-based position in the document. */
    index: number;
    /** Pages the chunk's items are on. */
    pages: number[];
    /** Size in `unit` of the chunk as docling-core's `contextualize()` gives it: headings, then `text`. */
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

/** Resolves a `#/texts/3`-style JSON pointer in the document (the whole item); undefined when it points nowhere. */
export function resolveRef(doc: DoclingDocument, ref: string): Record<string, unknown> | undefined {
  const m = /^#\/(texts|tables|pictures|groups|key_value_items|form_items)\/(\d+)$/.exec(ref);
  if (!m) return undefined;
  const list = (doc as unknown as Record<string, unknown[] | undefined>)[m[1]!];
  return list?.[Number(m[2])] as Record<string, unknown> | undefined;
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
  const chunks = chunkDocumentWithSources(pages, chunkOpts).map(({ chunk, sources, contextSize }): DoclingChunk => {
    const itemRefs: string[] = [];
    for (const s of sources) {
      const r = refs.get(s.item);
      if (!r) continue;
      if (s.part !== 'caption') for (const x of r.items) if (!itemRefs.includes(x)) itemRefs.push(x);
      if (s.part !== 'item' && r.caption && !itemRefs.includes(r.caption)) itemRefs.push(r.caption);
    }
    const docItems = itemRefs
      .map((r) => resolveRef(document, r))
      .filter((x) => x !== undefined)
      .map(baseDocItem);
    const meta: DoclingChunk['meta'] = {
      schema_name: DOC_META_SCHEMA_NAME,
      version: DOC_META_VERSION,
      doc_items: docItems,
    };
    if (chunk.headings.length > 0) meta.headings = chunk.headings;
    if (origin) meta.origin = origin;
    const folio: DoclingChunk['folio'] = {
      index: chunk.index,
      pages: chunk.pages,
      // What HybridChunker counts against max_tokens: `contextualize()`, the headings then the
      // text (docling-core b7a4298, transforms/chunker/hybrid_chunker.py _count_chunk_tokens).
      size: contextSize,
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
