/**
 * The schema of `<name>.folio.json`. A sidecar is a workspace file, so a cloned repository can
 * ship a hostile one: every field is checked against an allow-list with types and sizes, and a
 * sidecar that fails is ignored as a whole (the caller warns). Folders (page cache, assets,
 * models) are never taken from it: they come from the user's configuration at request time.
 *
 * No `vscode` import: the checks run in plain Node tests too.
 */
import { fileURLToPath } from 'node:url';
import { dirname } from 'node:path';
import { REGION_CLASSES, type ConvertOptions } from '../../common/protocol';
import { isInside } from '../../common/safeWrite';
import { isRegionBox, isRegionId, MAX_BOX_COORD } from '../../common/viewMessages';
import type { MappedPage, MappedRegion } from './regionMap';

export const SIDECAR_VERSION = 1 as const;

/** Limits of what a sidecar may hold; a larger one is not Folio's (or not worth the memory). */
export const SIDECAR_LIMITS = {
  fileBytes: 64 * 1024 * 1024,
  pages: 10_000,
  regionsPerPage: 2_000,
  /**
   * Regions in the whole file. The view draws a box for each region of every page and the host
   * re-anchors them all on each open: 100,000 is 2,000 pages (the service's page limit) of 50
   * regions, and stays well within what both do in a moment.
   */
  regions: 100_000,
  pageTextChars: 4 * 1024 * 1024,
  regionTextChars: 1024 * 1024,
  warnings: 100,
  warningChars: 2_000,
  pathChars: 4_096,
} as const;

/** The conversion options a sidecar may keep: how the text was read, never where files go. */
export type SidecarOptions = Pick<ConvertOptions, 'engine' | 'scale' | 'ocr' | 'keepFurniture' | 'layoutPrior'>;

export interface Sidecar {
  folio: typeof SIDECAR_VERSION;
  /** `file:` URI of the PDF. */
  pdf: string;
  options: SidecarOptions;
  pages: MappedPage[];
  /** SHA-256 (hex) of the `.md` as Folio last wrote it; a differing `.md` has the user's edits. */
  mdSha256?: string;
  /** SHA-256 (hex) of the PDF it was converted from (Convert All PDFs in Folder: up-to-date check). */
  pdfSha256?: string;
}

/** Option fields older sidecars carried; they are dropped, never used. */
const LEGACY_OPTION_FIELDS = new Set([
  'cacheDir',
  'assetsDir',
  'markdownDir',
  'modelsDir',
  'providers',
  'renderImages',
]);

export function sidecarOptions(o: ConvertOptions): SidecarOptions {
  const out: SidecarOptions = {};
  if (o.engine !== undefined) out.engine = o.engine;
  if (o.scale !== undefined) out.scale = o.scale;
  if (o.ocr !== undefined) out.ocr = o.ocr;
  if (o.keepFurniture !== undefined) out.keepFurniture = o.keepFurniture;
  if (o.layoutPrior !== undefined) out.layoutPrior = o.layoutPrior;
  return out;
}

class Bad extends Error {}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown, what: string, min = -1e7, max = 1e7): number => {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max)
    throw new Bad(`${what} must be a number from ${min} to ${max}`);
  return v;
};
const int = (v: unknown, what: string, min: number, max: number): number => {
  const n = num(v, what, min, max);
  if (!Number.isInteger(n)) throw new Bad(`${what} must be a whole number`);
  return n;
};
const str = (v: unknown, what: string, max: number): string => {
  if (typeof v !== 'string' || v.length > max) throw new Bad(`${what} must be a string of at most ${max} characters`);
  return v;
};
const onlyKeys = (o: Record<string, unknown>, allowed: readonly string[], what: string) => {
  for (const k of Object.keys(o))
    if (!allowed.includes(k)) throw new Bad(`${what} has an unknown field "${k.slice(0, 40)}"`);
};
const oneOf = <T extends string>(v: unknown, values: readonly T[], what: string): T => {
  if (typeof v !== 'string' || !(values as readonly string[]).includes(v))
    throw new Bad(`${what} must be one of ${values.join(', ')}`);
  return v as T;
};

function options(v: unknown): SidecarOptions {
  if (v === undefined) return {};
  if (!isObj(v)) throw new Bad('options must be an object');
  const out: SidecarOptions = {};
  for (const [k, val] of Object.entries(v)) {
    if (val === undefined || LEGACY_OPTION_FIELDS.has(k)) continue;
    switch (k) {
      case 'engine':
        out.engine = oneOf(val, ['pipeline', 'vlm'] as const, 'options.engine');
        break;
      case 'scale':
        out.scale = num(val, 'options.scale', 0.25, 8);
        break;
      case 'ocr':
        out.ocr = oneOf(val, ['auto', 'always', 'never'] as const, 'options.ocr');
        break;
      case 'keepFurniture':
        if (typeof val !== 'boolean') throw new Bad('options.keepFurniture must be true or false');
        out.keepFurniture = val;
        break;
      case 'layoutPrior':
        out.layoutPrior = oneOf(val, ['auto', 'on', 'off'] as const, 'options.layoutPrior');
        break;
      default:
        throw new Bad(`options has an unknown field "${k.slice(0, 40)}"`);
    }
  }
  return out;
}

/** A box as the webview draws it (`isBBox`: ordered, non-empty, within -1…15 000 pt), or none (`isRegionBox`: all zeros, an Office/HTML region). */
const box = (v: unknown, what: string) => {
  if (!isObj(v)) throw new Bad(`${what} must be a box`);
  onlyKeys(v, ['x0', 'y0', 'x1', 'y1'], what);
  const b = {
    x0: num(v.x0, `${what}.x0`, -1, MAX_BOX_COORD),
    y0: num(v.y0, `${what}.y0`, -1, MAX_BOX_COORD),
    x1: num(v.x1, `${what}.x1`, -1, MAX_BOX_COORD),
    y1: num(v.y1, `${what}.y1`, -1, MAX_BOX_COORD),
  };
  if (!isRegionBox(b)) throw new Bad(`${what} must have x0 < x1 and y0 < y1 (or be all zeros)`);
  return b;
};

function region(v: unknown, pageNo: number, what: string): MappedRegion {
  if (!isObj(v)) throw new Bad(`${what} must be an object`);
  onlyKeys(v, ['id', 'page', 'cls', 'level', 'bbox', 'grid', 'order', 'range', 'text', 'doctags'], what);
  const id = str(v.id, `${what}.id`, 200);
  // The webview's rule (`isRegionId`), and the page in the id is the region's page: the view
  // finds a region's page from its id.
  if (!isRegionId(id) || Number(/^p(\d+)-/.exec(id)![1]) !== pageNo)
    throw new Bad(`${what}.id must be p${pageNo}-<letter><number> (like p${pageNo}-r0)`);
  const grid = v.grid;
  if (!Array.isArray(grid) || grid.length !== 4) throw new Bad(`${what}.grid must be four numbers`);
  const r: MappedRegion = {
    id,
    page: int(v.page, `${what}.page`, pageNo, pageNo),
    cls: oneOf(v.cls, REGION_CLASSES, `${what}.cls`),
    bbox: box(v.bbox, `${what}.bbox`),
    grid: grid.map((g, i) => int(g, `${what}.grid[${i}]`, 0, 500)) as MappedRegion['grid'],
    order: int(v.order, `${what}.order`, 0, SIDECAR_LIMITS.regionsPerPage),
    text: str(v.text ?? '', `${what}.text`, SIDECAR_LIMITS.regionTextChars),
  };
  if (v.level !== undefined) r.level = int(v.level, `${what}.level`, 0, 20);
  if (v.doctags !== undefined) r.doctags = str(v.doctags, `${what}.doctags`, SIDECAR_LIMITS.regionTextChars);
  if (v.range !== undefined) {
    if (!isObj(v.range)) throw new Bad(`${what}.range must be an object`);
    onlyKeys(v.range, ['start', 'end'], `${what}.range`);
    const start = int(v.range.start, `${what}.range.start`, 0, 2 ** 31);
    const end = int(v.range.end, `${what}.range.end`, start, 2 ** 31);
    r.range = { start, end };
  }
  return r;
}

function page(v: unknown, i: number): MappedPage {
  const what = `pages[${i}]`;
  if (!isObj(v)) throw new Bad(`${what} must be an object`);
  onlyKeys(
    v,
    [
      'page',
      'width',
      'height',
      'image',
      'imageWidth',
      'imageHeight',
      'doctags',
      'mdOffset',
      'markdown',
      'ocr',
      'warnings',
      'error',
      'regions',
    ],
    what,
  );
  const pageNo = int(v.page, `${what}.page`, 1, 1_000_000);
  if (!Array.isArray(v.regions) || v.regions.length > SIDECAR_LIMITS.regionsPerPage)
    throw new Bad(`${what}.regions must be a list of at most ${SIDECAR_LIMITS.regionsPerPage}`);
  const warnings = v.warnings ?? [];
  if (!Array.isArray(warnings) || warnings.length > SIDECAR_LIMITS.warnings)
    throw new Bad(`${what}.warnings must be a list of at most ${SIDECAR_LIMITS.warnings}`);
  const p: MappedPage = {
    page: pageNo,
    width: num(v.width, `${what}.width`, 0, 1e7),
    height: num(v.height, `${what}.height`, 0, 1e7),
    doctags: str(v.doctags ?? '', `${what}.doctags`, SIDECAR_LIMITS.pageTextChars),
    mdOffset: int(v.mdOffset ?? 0, `${what}.mdOffset`, 0, 2 ** 31),
    markdown: str(v.markdown ?? '', `${what}.markdown`, SIDECAR_LIMITS.pageTextChars),
    ocr: v.ocr === true,
    warnings: warnings.map((w, k) => str(w, `${what}.warnings[${k}]`, SIDECAR_LIMITS.warningChars)),
    regions: v.regions.map((r, k) => region(r, pageNo, `${what}.regions[${k}]`)),
  };
  // The page image is shown only from the page cache (PreviewSession.imageSrc checks the folder).
  if (v.image !== undefined) p.image = str(v.image, `${what}.image`, SIDECAR_LIMITS.pathChars);
  if (v.imageWidth !== undefined) p.imageWidth = int(v.imageWidth, `${what}.imageWidth`, 1, 16_384);
  if (v.imageHeight !== undefined) p.imageHeight = int(v.imageHeight, `${what}.imageHeight`, 1, 16_384);
  if (v.error !== undefined) p.error = str(v.error, `${what}.error`, SIDECAR_LIMITS.warningChars);
  return p;
}

/**
 * Where the sidecar's PDF may be: a local `.pdf` file inside `root` (the workspace folder holding
 * the `.md`, else the `.md`'s own folder). Returns its path.
 */
function pdfPath(v: unknown, root: string): string {
  const uri = str(v, 'pdf', SIDECAR_LIMITS.pathChars);
  if (!uri.startsWith('file:')) throw new Bad('pdf must be a file: URI');
  let path: string;
  try {
    path = fileURLToPath(uri);
  } catch {
    throw new Bad('pdf is not a valid file: URI');
  }
  if (!/\.(pdf|docx|pptx|xlsx|html?|csv)$/i.test(path))
    throw new Bad('pdf must name a .pdf file (or a .docx, .pptx, .xlsx, .html or .csv one)');
  if (!isInside(root, path)) throw new Bad(`pdf must be inside ${root}`);
  return path;
}

export type SidecarCheck = { sidecar: Sidecar; pdfPath: string } | { problem: string };

/**
 * Parses and checks a sidecar's text. `mdPath` is the `.md` it belongs to; `root` the workspace
 * folder holding it (undefined: the `.md`'s folder).
 */
export function parseSidecar(text: string, mdPath: string, root?: string): SidecarCheck {
  if (text.length > SIDECAR_LIMITS.fileBytes)
    return { problem: `it is larger than ${SIDECAR_LIMITS.fileBytes / 1024 / 1024} MB` };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return { problem: `it is not valid JSON (${(e as Error).message})` };
  }
  try {
    if (!isObj(data)) throw new Bad('it is not a JSON object');
    onlyKeys(data, ['folio', 'pdf', 'options', 'pages', 'mdSha256', 'pdfSha256'], 'it');
    if (data.folio !== SIDECAR_VERSION) throw new Bad(`it is not a Folio ${SIDECAR_VERSION} sidecar`);
    const pdf = pdfPath(data.pdf, root ?? dirname(mdPath));
    if (!Array.isArray(data.pages) || data.pages.length > SIDECAR_LIMITS.pages)
      throw new Bad(`pages must be a list of at most ${SIDECAR_LIMITS.pages}`);
    let regions = 0;
    for (const p of data.pages) if (isObj(p) && Array.isArray(p.regions)) regions += p.regions.length;
    if (regions > SIDECAR_LIMITS.regions)
      throw new Bad(`it has ${regions} regions; at most ${SIDECAR_LIMITS.regions} are allowed in one file`);
    const sidecar: Sidecar = {
      folio: SIDECAR_VERSION,
      pdf: data.pdf as string,
      options: options(data.options),
      pages: data.pages.map(page),
    };
    if (data.mdSha256 !== undefined) {
      if (typeof data.mdSha256 !== 'string' || !/^[0-9a-f]{64}$/.test(data.mdSha256))
        throw new Bad('mdSha256 must be a SHA-256 in hex');
      sidecar.mdSha256 = data.mdSha256;
    }
    if (data.pdfSha256 !== undefined) {
      if (typeof data.pdfSha256 !== 'string' || !/^[0-9a-f]{64}$/.test(data.pdfSha256))
        throw new Bad('pdfSha256 must be a SHA-256 in hex');
      sidecar.pdfSha256 = data.pdfSha256;
    }
    return { sidecar, pdfPath: pdf };
  } catch (e) {
    if (e instanceof Bad) return { problem: e.message };
    throw e;
  }
}
