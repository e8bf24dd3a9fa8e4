/**
 * Documents born structured (Word, PowerPoint, Excel, HTML, Markdown, CSV) → Folio's items, read
 * from their own structure with no layout guessing. One entry: `readStructured` picks the reader
 * by the file's extension; every failure is a FolioError naming the file and saying what to do.
 */
import { readFileSync, statSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { FolioErrorCodes } from '../../common/protocol';
import { FolioError, isFolioError } from '../errors';
import { readDocx } from './docx';
import { readPptx } from './pptx';
import { readXlsx } from './xlsx';
import { readCsv } from './csv';
import { readMarkdown } from './markdown';
import { readHtml } from '../html/html';
import { OfficePackage } from './package';
import type { ReadOptions, StructuredDocument, StructuredFormat } from './types';

export type { StructuredDocument, StructuredFormat, StructuredPage, ReadOptions } from './types';

const BY_EXT: Record<string, StructuredFormat> = {
  '.docx': 'docx',
  '.docm': 'docx',
  '.dotx': 'docx',
  '.pptx': 'pptx',
  '.pptm': 'pptx',
  '.ppsx': 'pptx',
  '.xlsx': 'xlsx',
  '.xlsm': 'xlsx',
  '.html': 'html',
  '.htm': 'html',
  '.xhtml': 'html',
  '.md': 'md',
  '.markdown': 'md',
  '.csv': 'csv',
};

/** The structured format of a path by its extension, or undefined (a PDF, an image…). */
export function structuredFormatOf(path: string): StructuredFormat | undefined {
  return BY_EXT[extname(path).toLowerCase()];
}

/** Largest structured input read (the zip's own limits then apply to what it holds). */
export const MAX_STRUCTURED_BYTES = 512 * 1024 * 1024;
/** Largest text input (HTML, Markdown, CSV). */
export const MAX_TEXT_BYTES = 64 * 1024 * 1024;

/** Reads `path` as `format`. Macros (`.docm`, `.xlsm`, `.pptm`) are parts Folio never opens, let alone runs. */
export function readStructured(path: string, format: StructuredFormat, opts: ReadOptions = {}): StructuredDocument {
  const name = basename(path);
  const size = statSync(path).size;
  const textual = format === 'html' || format === 'md' || format === 'csv';
  const limit = textual ? MAX_TEXT_BYTES : MAX_STRUCTURED_BYTES;
  if (size > limit)
    throw new FolioError(
      FolioErrorCodes.TooLarge,
      `${name} is ${size} bytes, more than Folio reads for a .${format} file (${limit}): nothing was converted.`,
    );
  const bytes = readFileSync(path);
  try {
    if (textual) {
      const text = new TextDecoder('utf-8').decode(bytes);
      if (format === 'html') return readHtml(text, opts);
      if (format === 'md') return readMarkdown(text, opts);
      return readCsv(text, opts);
    }
    const pkg = new OfficePackage(bytes, path);
    if (format === 'docx') return readDocx(pkg, opts);
    if (format === 'pptx') return readPptx(pkg, opts);
    return readXlsx(pkg, opts);
  } catch (e) {
    if (isFolioError(e)) throw e;
    throw new FolioError(
      FolioErrorCodes.InvalidPdf,
      `${name} could not be read as .${format}: ${(e as Error).message}. It may be damaged; open and save it again.`,
    );
  }
}
