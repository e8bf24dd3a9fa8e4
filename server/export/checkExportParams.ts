/**
 * The backend's check of `folio/export` parameters (the same stance as server/convert/checkParams:
 * fields are an allow-list, folders absolute without `..`). Returns a message naming the bad
 * field, or undefined when the parameters are acceptable. Pages are checked for the shape the
 * exporter reads; their content was produced by this backend's own conversion.
 */
import { isAbsolute } from 'node:path';
import type { ExportParams } from '../../common/protocol';
import { picturePathProblem } from './pictureFile';
import { OUTPUT_FORMATS, isPagesFormat, type OutputFormat } from '../../common/requestModel';

const PAGES_FORMATS = (Object.keys(OUTPUT_FORMATS) as OutputFormat[]).filter(isPagesFormat);

const MAX_PATH = 4096;
const FIELDS: readonly (keyof ExportParams)[] = [
  'uri',
  'format',
  'pages',
  'images',
  'picturesDir',
  'keepFurniture',
  'chunkSize',
  'chunkSchema',
];

function pageProblem(p: unknown): string | undefined {
  if (typeof p !== 'object' || p === null) return 'must be an object';
  const r = p as Record<string, unknown>;
  if (!Number.isInteger(r.page) || (r.page as number) < 1) return 'page must be a page number from 1';
  if (typeof r.doctags !== 'string' || typeof r.markdown !== 'string') return 'doctags and markdown must be text';
  if (!Array.isArray(r.regions)) return 'regions must be a list';
  if (typeof r.width !== 'number' || typeof r.height !== 'number') return 'width and height must be numbers';
  return undefined;
}

/**
 * Picture files are named by the regions (`Region.imagePath`), never by the Markdown text; an
 * export reads them only inside `picturesDir` (server/export/pictureFile.ts checks again at the
 * read: real path inside, regular file, size cap). A path that is not plain and relative is refused here.
 */
function pictureProblem(regions: unknown[]): string | undefined {
  for (let j = 0; j < regions.length; j++) {
    const r = regions[j];
    if (typeof r !== 'object' || r === null) return `regions[${j}] must be an object`;
    const path = (r as Record<string, unknown>).imagePath;
    if (path === undefined) continue;
    const problem = typeof path === 'string' ? picturePathProblem(path) : 'not text';
    if (problem) return `regions[${j}].imagePath is ${problem}: picture files must be inside picturesDir`;
  }
  return undefined;
}

export function checkExportParams(params: unknown): string | undefined {
  if (typeof params !== 'object' || params === null) return 'the parameters must be an object';
  const p = params as Record<string, unknown>;
  for (const k of Object.keys(p))
    if (!FIELDS.includes(k as keyof ExportParams)) return `${k}: not a field of folio/export`;
  if (typeof p.uri !== 'string' || p.uri.length === 0 || p.uri.length > MAX_PATH * 3 || p.uri.includes('\0'))
    return 'uri: must be a file URI or an absolute path';
  if (!p.uri.startsWith('file:') && !isAbsolute(p.uri)) return 'uri: must be a file URI or an absolute path';
  // Only the formats built from pages: the others are the summary's own text (common/requestModel.ts `from`).
  if (
    typeof p.format !== 'string' ||
    !Object.hasOwn(OUTPUT_FORMATS, p.format) ||
    !isPagesFormat(p.format as OutputFormat)
  )
    return `format: must be one of ${PAGES_FORMATS.join(', ')}`;
  if (!Array.isArray(p.pages)) return 'pages: must be a list of page results';
  for (let i = 0; i < p.pages.length; i++) {
    const problem = pageProblem(p.pages[i]);
    if (problem) return `pages[${i}]: ${problem}`;
  }
  if (p.images !== undefined && p.images !== 'link' && p.images !== 'embed' && p.images !== 'none')
    return 'images: must be one of link, embed, none';
  if (p.picturesDir !== undefined) {
    const d = p.picturesDir;
    if (typeof d !== 'string' || d.length === 0 || d.length > MAX_PATH || d.includes('\0') || !isAbsolute(d))
      return 'picturesDir: must be an absolute folder path';
    if (d.split(/[\\/]/).includes('..')) return 'picturesDir: must not contain ".." segments';
  }
  for (let i = 0; i < p.pages.length; i++) {
    const problem = pictureProblem((p.pages[i] as { regions: unknown[] }).regions);
    if (problem) return `pages[${i}]: ${problem}`;
  }
  if (p.keepFurniture !== undefined && typeof p.keepFurniture !== 'boolean')
    return 'keepFurniture: must be true or false';
  if (
    p.chunkSize !== undefined &&
    !(Number.isInteger(p.chunkSize) && (p.chunkSize as number) >= 64 && (p.chunkSize as number) <= 1_000_000)
  )
    return 'chunkSize: must be a whole number from 64 to 1000000';
  if (p.chunkSchema !== undefined && p.chunkSchema !== 'docling' && p.chunkSchema !== 'flat')
    return 'chunkSchema: must be docling or flat';
  return undefined;
}
