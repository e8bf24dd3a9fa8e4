/**
 * The output formats beyond Folio's own (Markdown, DocTags, page JSON): a DoclingDocument and
 * retrieval chunks, and the picture modes. One entry for the CLI, the MCP server and the
 * extension's backend: converted pages in, the file's text out.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PageResult } from '../protocol';
import { exportPageFromResult, type ExportPage } from './pages';
import { toDoclingDocument } from './docling';
import { chunkDocument, chunksToJsonl, type ChunkOptions } from './chunks';
import { dropPictures, embedPictures, pagesToMarkdown, type ImageMode } from './images';

export type ExportFormat = 'md' | 'docling' | 'chunks';

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
}

/**
 * docling-core's `binary_hash` is a 64-bit hash of the file; 48 bits of its SHA-256 keep it a
 * safe JSON integer (a 64-bit number would be rounded by every JavaScript JSON reader).
 */
export function binaryHash(path: string): number {
  const d = createHash('sha256').update(readFileSync(path)).digest();
  return d.readUIntBE(0, 6);
}

export function exportPages(req: Pick<ExportRequest, 'pages' | 'images' | 'imagesBaseDir' | 'picturesRoot'>): { pages: ExportPage[]; warnings: string[] } {
  const pages = req.pages.filter((p) => !p.error).map(exportPageFromResult);
  let warnings: string[] = [];
  if (req.images === 'embed') warnings = embedPictures(pages, { baseDir: req.imagesBaseDir, root: req.picturesRoot });
  else if (req.images === 'none') dropPictures(pages);
  return { pages, warnings };
}

export function renderExport(req: ExportRequest): { text: string; warnings: string[] } {
  const { pages, warnings } = exportPages(req);
  switch (req.format) {
    case 'md':
      return { text: pagesToMarkdown(pages, req.keepFurniture), warnings };
    case 'docling': {
      let hash = 0;
      try {
        hash = binaryHash(req.pdfPath);
      } catch {
        // the file went away after conversion: the document still exports, without a hash
      }
      const name = basename(req.pdfPath).replace(/\.[^.]+$/, '');
      const doc = toDoclingDocument(pages, {
        name,
        baseDir: req.imagesBaseDir,
        picturesRoot: req.picturesRoot,
        origin: { filename: basename(req.pdfPath), mimetype: mimeOf(req.pdfPath), binaryHash: hash, uri: pathToFileURL(req.pdfPath).href },
      });
      return { text: JSON.stringify(doc, null, 2) + '\n', warnings };
    }
    case 'chunks':
      return { text: chunksToJsonl(chunkDocument(pages, { maxSize: 2000, unit: 'chars', ...req.chunk, keepFurniture: req.keepFurniture })), warnings };
  }
}

function mimeOf(path: string): string {
  const ext = path.toLowerCase().split('.').pop();
  return ext === 'png' ? 'image/png' : ext === 'jpg' || ext === 'jpeg' ? 'image/jpeg' : ext === 'tif' || ext === 'tiff' ? 'image/tiff' : 'application/pdf';
}
