/**
 * The output formats beyond Folio's own (Markdown, DocTags, page JSON): a DoclingDocument and
 * retrieval chunks, and the picture modes. One entry for the CLI, the MCP server and the
 * extension's backend: converted pages in, the file's text out.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PageResult } from '../../common/protocol';
import type { PagesFormat } from '../../common/requestModel';
import { exportPageFromResult, type ExportPage } from './pages';
import { toDoclingDocument, type DoclingOptions } from './docling';
import { chunkDocument, chunksToJsonl, type ChunkOptions } from './chunks';
import { doclingChunks, doclingChunksToJsonl } from './doclingChunks';
import { dropPictures, embedPictures, pagesToMarkdown, type ImageMode } from './images';

/** The formats rendered from page results: those of `OUTPUT_FORMATS` built from pages, and Markdown with embedded pictures. */
export type ExportFormat = 'md' | PagesFormat;

export interface ExportRequest {
  format: ExportFormat;
  pdfPath: string;
  pages: readonly PageResult[];
  images: ImageMode;
  /** Folder the picture paths in the pages are relative to. */
  imagesBaseDir: string;
  /**
   * Folder every picture file read must really be inside (the document's assets folder), default
   * `imagesBaseDir`. Pictures are read only through server/export/pictureFile.ts.
   */
  picturesRoot?: string;
  keepFurniture: boolean;
  chunk?: Omit<ChunkOptions, 'keepFurniture'>;
  /**
   * Chunks: `docling` (default) writes docling-core's DocChunk lines whose `doc_items` are items
   * of the DoclingDocument returned as `document`; `flat` Folio's earlier one-object lines
   * (text, headings, pages, boxes, kinds). docs/formats.md describes both.
   */
  chunkSchema?: ChunkSchema;
  /** JSON layout of the docling format (and of `document`): `pretty` (default, 2 spaces) or `compact`. */
  json?: 'pretty' | 'compact';
}

export type ChunkSchema = 'docling' | 'flat';

export interface ExportOutput {
  text: string;
  warnings: string[];
  /** Docling-shaped chunks: the DoclingDocument their `doc_items` refer to (write it as `<name>.docling.json`). */
  document?: string;
}

/**
 * docling-core's `binary_hash` is a 64-bit hash of the file; 48 bits of its SHA-256 keep it a
 * safe JSON integer (a 64-bit number would be rounded by every JavaScript JSON reader).
 */
export function binaryHash(path: string): number {
  // Read as a regular file in chunks, never whole: the path may come from a request, and a
  // device (`/dev/zero`) or a huge file must not be loaded into memory.
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    if (!fstatSync(fd).isFile()) throw new Error(`${path} is not a regular file`);
    const h = createHash('sha256');
    const buf = Buffer.alloc(1 << 20);
    for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0;) h.update(buf.subarray(0, n));
    return h.digest().readUIntBE(0, 6);
  } finally {
    closeSync(fd);
  }
}

export function exportPages(req: Pick<ExportRequest, 'pages' | 'images' | 'imagesBaseDir' | 'picturesRoot'>): {
  pages: ExportPage[];
  warnings: string[];
} {
  const pages = req.pages.filter((p) => !p.error).map(exportPageFromResult);
  let warnings: string[] = [];
  if (req.images === 'embed') warnings = embedPictures(pages, { baseDir: req.imagesBaseDir, root: req.picturesRoot });
  else if (req.images === 'none') dropPictures(pages);
  return { pages, warnings };
}

/** The DoclingDocument's name, origin and picture folder for a source file. */
export function doclingOptionsFor(pdfPath: string, imagesBaseDir: string, picturesRoot?: string): DoclingOptions {
  let hash = 0;
  try {
    hash = binaryHash(pdfPath);
  } catch {
    // the file went away after conversion: the document still exports, without a hash
  }
  return {
    name: basename(pdfPath).replace(/\.[^.]+$/, ''),
    baseDir: imagesBaseDir,
    picturesRoot,
    origin: {
      filename: basename(pdfPath),
      mimetype: mimeOf(pdfPath),
      binaryHash: hash,
      uri: pathToFileURL(pdfPath).href,
    },
  };
}

export function renderExport(req: ExportRequest): ExportOutput {
  const { pages, warnings } = exportPages(req);
  const json = (v: unknown) => (req.json === 'compact' ? JSON.stringify(v) : JSON.stringify(v, null, 2)) + '\n';
  switch (req.format) {
    case 'md':
      return { text: pagesToMarkdown(pages, req.keepFurniture), warnings };
    case 'docling':
      return {
        text: json(toDoclingDocument(pages, doclingOptionsFor(req.pdfPath, req.imagesBaseDir, req.picturesRoot))),
        warnings,
      };
    case 'chunks': {
      const chunk: ChunkOptions = { maxSize: 2000, unit: 'chars', ...req.chunk, keepFurniture: req.keepFurniture };
      if (req.chunkSchema === 'flat') return { text: chunksToJsonl(chunkDocument(pages, chunk)), warnings };
      const { document, chunks } = doclingChunks(pages, {
        ...doclingOptionsFor(req.pdfPath, req.imagesBaseDir, req.picturesRoot),
        chunk,
      });
      return { text: doclingChunksToJsonl(chunks), warnings, document: json(document) };
    }
  }
}

function mimeOf(path: string): string {
  const ext = path.toLowerCase().split('.').pop();
  return ext === 'png'
    ? 'image/png'
    : ext === 'jpg' || ext === 'jpeg'
      ? 'image/jpeg'
      : ext === 'tif' || ext === 'tiff'
        ? 'image/tiff'
        : 'application/pdf';
}
