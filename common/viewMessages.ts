/**
 * Every message between the extension host (src/preview) and the preview webview
 * (media/preview). Both sides import this one module, so a message's shape is defined once.
 *
 * Each message carries the URI and version of the Markdown document it is about. The version is
 * the `.md` TextDocument version the region map belonged to when the message was made; a side
 * that has already seen a newer version drops older messages (`isStale`). Incoming messages are
 * untrusted (the webview renders PDF-derived text) and are checked field by field before use
 * (`parseViewMessage`, `parseHostMessage`).
 *
 * No imports from `vscode` or the DOM: this file is bundled into both sides and unit-tested in Node.
 */
import { REGION_CLASSES, type BBox, type Region, type RegionClass } from './protocol';

/** One region as the webview shows it: the protocol's region, with a link flag instead of offsets. */
export interface RegionView extends Omit<Region, 'mdRange'> {
  /** False when the region has no Markdown in the `.md` (furniture, deleted text, not parsed yet). */
  linked: boolean;
}

/** A piece of the page's Markdown: the block of one region, or text no region owns. */
export interface MarkdownBlock {
  regionId?: string;
  markdown: string;
}

export interface PageView {
  page: number;
  /** Page size in points. */
  width: number;
  height: number;
  /** Webview URI of the rendered page image, when there is one. */
  imageSrc?: string;
  /**
   * The same image inline (`data:image/png;base64,…`), sent with a conversion's first page only:
   * it is on screen without the webview's resource round trip, which on a cold view took seconds
   * (docs/preview.md, "First page"). The webview keeps it for `imageSrc`.
   */
  imageData?: string;
  imageWidth?: number;
  imageHeight?: number;
  regions: RegionView[];
  blocks: MarkdownBlock[];
  ocr: boolean;
  warnings: string[];
  error?: string;
}

interface Addressed {
  /** URI of the `.md` document (string form of vscode.Uri). */
  uri: string;
  version: number;
}

// ---------------------------------------------------------------- host → webview

/** The whole state: sent when the panel opens, is restored, or the document is re-anchored. */
export interface InitMessage extends Addressed {
  type: 'init';
  title: string;
  pdfUri: string;
  pages: PageView[];
  converting: boolean;
  /** Id of the conversion running (its partial-result token); `partial` messages of another are stale. */
  conversion?: string;
  /** The view was opened on a PDF without Markdown yet (the `folio.pdf` editor): it offers to convert. */
  notConverted?: boolean;
  /** While converting: pages done of the PDF's pages, as the backend last said. */
  progress?: { done: number; total: number };
  /**
   * How a document born structured is shown, in words (docs/preview.md, "Office and HTML files"):
   * e.g. "Slides shown as an outline: LibreOffice is not installed". Absent for a PDF.
   */
  sourceNote?: string;
}
/** One page arrived or changed (a reparse, a region edit, the `.md` was edited). */
export interface PageMessage extends Addressed {
  type: 'page';
  page: PageView;
}
/** The editor cursor is inside this region's Markdown (or in none: `regionId` absent). */
export interface HighlightMessage extends Addressed {
  type: 'highlight';
  regionId?: string;
  /** Scroll the box into view. */
  reveal: boolean;
}
export interface StatusMessage extends Addressed {
  type: 'status';
  level: 'info' | 'warning' | 'error';
  text: string;
  /** Region a reparse was running for; lets the webview clear its busy state. */
  regionId?: string;
  busy?: boolean;
}
/** A page the VLM is still writing: its Markdown so far, shown until the page itself arrives. */
export interface PartialMessage extends Addressed {
  type: 'partial';
  conversion: string;
  page: number;
  /** Newer partials of a page have larger numbers. */
  seq: number;
  markdown: string;
}
/** The backend's count while converting: the view says "converting page done+1 of total". */
export interface ProgressMessage extends Addressed {
  type: 'progress';
  done: number;
  total: number;
}
/**
 * Scroll sync, editor → view: the `.md` editor's top line is `fraction` (0–1) of the way through
 * this region's Markdown lines; the view puts that point of the region's box at its top.
 */
export interface ScrollToMessage extends Addressed {
  type: 'scrollTo';
  regionId: string;
  fraction: number;
}
export interface FinishedMessage extends Addressed {
  type: 'finished';
  cancelled: boolean;
  pagesDone: number;
}

export type HostMessage =
  | InitMessage
  | PageMessage
  | PartialMessage
  | HighlightMessage
  | StatusMessage
  | FinishedMessage
  | ProgressMessage
  | ScrollToMessage;

// ---------------------------------------------------------------- webview → host

/** The webview script has loaded and wants the state. */
export interface ReadyMessage extends Addressed {
  type: 'ready';
  /** ms from the webview document's start to its script running (the first-paint trace). */
  scriptMs?: number;
}
/** A page's image is on screen for the first time in this webview (the first-paint trace). */
export interface PaintedMessage extends Addressed {
  type: 'painted';
  page: number;
  /** ms after the webview's script ran: the page message in, its image requested, loaded. */
  steps?: { received: number; requested: number; loaded: number };
}
/**
 * Scroll sync, view → editor: the user scrolled the view; its top is `fraction` (0–1) of the way
 * down this region's box. Only scrolls the user made are sent, never one the view made to follow.
 */
export interface ScrolledMessage extends Addressed {
  type: 'scrolled';
  regionId: string;
  fraction: number;
}
/** A box was clicked / Enter pressed: select and reveal its Markdown in the editor. */
export interface RevealMessage extends Addressed {
  type: 'reveal';
  regionId: string;
  /** True for a click or Enter (focus the editor), false for a hover (select only). */
  focus: boolean;
}
/** A region was moved, resized or given another class (no reparse yet). */
export interface EditRegionMessage extends Addressed {
  type: 'editRegion';
  page: number;
  regionId: string;
  bbox: BBox;
  cls: RegionClass;
}
export interface ReparseMessage extends Addressed {
  type: 'reparse';
  page: number;
  regionId: string;
  bbox: BBox;
  cls: RegionClass;
}
/** A new region was drawn; the host adds it and reparses it. */
export interface AddRegionMessage extends Addressed {
  type: 'addRegion';
  page: number;
  bbox: BBox;
  cls: RegionClass;
}
/**
 * The view shows these pages wider (zoom × device pixel ratio) than their images have pixels:
 * render them again at `scale` (1 = 72 dpi) so the text stays crisp.
 */
export interface SharpenMessage extends Addressed {
  type: 'sharpen';
  pages: number[];
  scale: number;
}
/** The "Convert to Markdown" button of a view on a PDF without Markdown. */
export interface ConvertMessage extends Addressed {
  type: 'convert';
}
export interface DeleteRegionMessage extends Addressed {
  type: 'deleteRegion';
  page: number;
  regionId: string;
}

export type ViewMessage =
  | ReadyMessage
  | RevealMessage
  | EditRegionMessage
  | ReparseMessage
  | AddRegionMessage
  | DeleteRegionMessage
  | ConvertMessage
  | SharpenMessage
  | PaintedMessage
  | ScrolledMessage;

/** A message without its address (the sender adds uri and version). */
export type Unaddressed<T> = T extends unknown ? Omit<T, 'uri' | 'version'> : never;
export type ViewMessageBody = Unaddressed<ViewMessage>;
export type HostMessageBody = Unaddressed<HostMessage>;

/**
 * What the view's source is, from its file name: a PDF (pages with boxes), a document born
 * structured (DOCX, XLSX, HTML, Markdown, CSV: its Markdown's outline), or slides (PPTX: pages when
 * LibreOffice rendered them, else the outline). Both sides decide with this one function.
 */
export type SourceKind = 'pdf' | 'document' | 'slides';
export function sourceKindOf(uri: string): SourceKind {
  const path = uri.replace(/[?#].*$/, '');
  if (/\.pptx$/i.test(path)) return 'slides';
  if (/\.(docx|xlsx|html?|md|markdown|csv)$/i.test(path)) return 'document';
  return 'pdf';
}

/** Classes offered in the "change class" menu (the issue's list, in that order). */
export const EDITABLE_CLASSES: readonly RegionClass[] = [
  'text',
  'section_header',
  'list_item',
  'table',
  'formula',
  'code',
  'picture',
  'caption',
  'footnote',
  'page_header',
  'page_footer',
];

/** Most pages one `sharpen` asks for, and the largest render scale (8 = 576 dpi). */
export const MAX_SHARPEN_PAGES = 6;
export const MAX_SHARPEN_SCALE = 8;

/** True when a message made at `version` is older than the newest version this side has seen. */
export function isStale(version: number, newestSeen: number): boolean {
  return version < newestSeen;
}

// ---------------------------------------------------------------- validation

type Rec = Record<string, unknown>;

const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isInt = (v: unknown): v is number => Number.isInteger(v);
const isStr = (v: unknown, max = 100_000): v is string => typeof v === 'string' && v.length <= max;
/**
 * Region ids are `p<page>-r<n>` from the engine or `p<page>-n<n>` for drawn ones. The sidecar
 * schema (src/preview/sidecarSchema.ts) applies this rule and `isBBox` too, so a sidecar the host
 * accepts never makes a page the webview refuses.
 */
export const REGION_ID = /^p\d{1,6}-[a-z]\d{1,6}$/;
export const isRegionId = (v: unknown): v is string => typeof v === 'string' && REGION_ID.test(v);
/** Largest coordinate of a box, in points (pages are < 15 000 pt). */
export const MAX_BOX_COORD = 15_000;
export const isRegionClass = (v: unknown): v is RegionClass =>
  typeof v === 'string' && (REGION_CLASSES as readonly string[]).includes(v);

/** A box in points: finite, ordered, non-empty and of a sane size (pages are < 15 000 pt). */
export function isBBox(v: unknown): v is BBox {
  if (!isRec(v)) return false;
  const { x0, y0, x1, y1 } = v;
  if (!isNum(x0) || !isNum(y0) || !isNum(x1) || !isNum(y1)) return false;
  const lim = (n: number) => n >= -1 && n <= MAX_BOX_COORD;
  return lim(x0) && lim(y0) && lim(x1) && lim(y1) && x1 > x0 && y1 > y0;
}

/**
 * A region's box as the view takes it from the host (and a sidecar holds it): a drawable box, or
 * none at all, all four zeros: a region of a document born structured (DOCX, PPTX, HTML…) has no
 * place on a page (server/convert/structuredInput.ts); the view lists it in the outline only.
 * Boxes the webview sends back (edits, new regions) must still be drawable (`isBBox`).
 */
export function isRegionBox(v: unknown): v is BBox {
  return isBBox(v) || (isRec(v) && v.x0 === 0 && v.y0 === 0 && v.x1 === 0 && v.y1 === 0);
}

function addressed(v: Rec): boolean {
  return isStr(v.uri, 4096) && v.uri.length > 0 && isInt(v.version) && (v.version as number) >= 0;
}

/** Largest inline page image (a 1224×1584 page PNG is ~0.5 MB in base64). */
export const MAX_IMAGE_DATA = 8_000_000;
const isImageData = (v: unknown): v is string =>
  isStr(v, MAX_IMAGE_DATA) && /^data:image\/(png|jpeg);base64,[A-Za-z0-9+/]+={0,2}$/.test(v);
const isFraction = (v: unknown): v is number => isNum(v) && v >= 0 && v <= 1;
const isProgress = (v: unknown): v is { done: number; total: number } =>
  isRec(v) && isInt(v.done) && isInt(v.total) && (v.done as number) >= 0 && (v.done as number) <= (v.total as number);

const isPage = (v: unknown): v is number => isInt(v) && (v as number) >= 1 && (v as number) <= 1_000_000;

/**
 * Checks a message from the webview. Returns it typed, or a string saying what is wrong (the
 * host logs it and ignores the message). Unknown extra fields are dropped, not passed on.
 */
export function parseViewMessage(raw: unknown): ViewMessage | string {
  if (!isRec(raw)) return 'message is not an object';
  if (!addressed(raw)) return 'message lacks a document uri/version';
  const { uri, version } = raw as { uri: string; version: number };
  switch (raw.type) {
    case 'ready':
      return {
        type: 'ready',
        uri,
        version,
        ...(isNum(raw.scriptMs) && raw.scriptMs >= 0 ? { scriptMs: raw.scriptMs } : {}),
      };
    case 'painted':
      if (!isPage(raw.page)) return 'painted: bad page';
      return {
        type: 'painted',
        uri,
        version,
        page: raw.page,
        ...(isRec(raw.steps) && [raw.steps.received, raw.steps.requested, raw.steps.loaded].every(isNum)
          ? {
              steps: {
                received: raw.steps.received as number,
                requested: raw.steps.requested as number,
                loaded: raw.steps.loaded as number,
              },
            }
          : {}),
      };
    case 'scrolled':
      if (!isRegionId(raw.regionId)) return 'scrolled: bad regionId';
      if (!isFraction(raw.fraction)) return 'scrolled: bad fraction';
      return { type: 'scrolled', uri, version, regionId: raw.regionId, fraction: raw.fraction };
    case 'convert':
      return { type: 'convert', uri, version };
    case 'sharpen':
      if (
        !Array.isArray(raw.pages) ||
        raw.pages.length < 1 ||
        raw.pages.length > MAX_SHARPEN_PAGES ||
        !raw.pages.every(isPage)
      )
        return 'sharpen: bad pages';
      if (!isNum(raw.scale) || raw.scale < 1 || raw.scale > MAX_SHARPEN_SCALE) return 'sharpen: bad scale';
      return { type: 'sharpen', uri, version, pages: [...(raw.pages as number[])], scale: raw.scale };
    case 'reveal':
      if (!isRegionId(raw.regionId)) return 'reveal: bad regionId';
      return { type: 'reveal', uri, version, regionId: raw.regionId, focus: raw.focus === true };
    case 'editRegion':
    case 'reparse':
      if (!isPage(raw.page)) return `${raw.type}: bad page`;
      if (!isRegionId(raw.regionId)) return `${raw.type}: bad regionId`;
      if (!isBBox(raw.bbox)) return `${raw.type}: bad bbox`;
      if (!isRegionClass(raw.cls)) return `${raw.type}: bad class`;
      return {
        type: raw.type,
        uri,
        version,
        page: raw.page,
        regionId: raw.regionId,
        bbox: pickBox(raw.bbox),
        cls: raw.cls,
      };
    case 'addRegion':
      if (!isPage(raw.page)) return 'addRegion: bad page';
      if (!isBBox(raw.bbox)) return 'addRegion: bad bbox';
      if (!isRegionClass(raw.cls)) return 'addRegion: bad class';
      return { type: 'addRegion', uri, version, page: raw.page, bbox: pickBox(raw.bbox), cls: raw.cls };
    case 'deleteRegion':
      if (!isPage(raw.page)) return 'deleteRegion: bad page';
      if (!isRegionId(raw.regionId)) return 'deleteRegion: bad regionId';
      return { type: 'deleteRegion', uri, version, page: raw.page, regionId: raw.regionId };
    default:
      return `unknown message type ${JSON.stringify(String(raw.type)).slice(0, 40)}`;
  }
}

function pickBox(b: BBox): BBox {
  return { x0: b.x0, y0: b.y0, x1: b.x1, y1: b.y1 };
}

function isRegionView(v: unknown): v is RegionView {
  if (!isRec(v)) return false;
  return (
    isRegionId(v.id) &&
    isRegionClass(v.cls) &&
    (v.level === undefined || isInt(v.level)) &&
    isRegionBox(v.bbox) &&
    Array.isArray(v.grid) &&
    v.grid.length === 4 &&
    v.grid.every(isNum) &&
    isInt(v.order) &&
    typeof v.linked === 'boolean'
  );
}

export function isPageView(v: unknown): v is PageView {
  if (!isRec(v)) return false;
  return (
    isPage(v.page) &&
    isNum(v.width) &&
    isNum(v.height) &&
    (v.imageSrc === undefined || isStr(v.imageSrc, 4096)) &&
    (v.imageData === undefined || isImageData(v.imageData)) &&
    Array.isArray(v.regions) &&
    v.regions.every(isRegionView) &&
    Array.isArray(v.blocks) &&
    v.blocks.every(
      (b) => isRec(b) && isStr(b.markdown, 10_000_000) && (b.regionId === undefined || isRegionId(b.regionId)),
    ) &&
    typeof v.ocr === 'boolean' &&
    Array.isArray(v.warnings) &&
    v.warnings.every((w) => isStr(w))
  );
}

/** Checks a message from the host (the webview validates too: defence in depth). */
export function parseHostMessage(raw: unknown): HostMessage | string {
  if (!isRec(raw)) return 'message is not an object';
  if (!addressed(raw)) return 'message lacks a document uri/version';
  switch (raw.type) {
    case 'init':
      if (!isStr(raw.title, 4096) || !isStr(raw.pdfUri, 4096)) return 'init: bad title/pdfUri';
      if (!Array.isArray(raw.pages)) return 'init: bad pages';
      for (const p of raw.pages as unknown[]) {
        if (isPageView(p)) continue;
        // Say which page and region, so the notice the view shows (refusalNotice) leads somewhere.
        const page = isRec(p) && isPage(p.page) ? `page ${p.page}` : 'a page';
        const region =
          isRec(p) && Array.isArray(p.regions) ? (p.regions as unknown[]).find((r) => !isRegionView(r)) : undefined;
        const id = isRec(region) && typeof region.id === 'string' ? JSON.stringify(region.id.slice(0, 40)) : '';
        return `init: ${page} has ${region ? `a region ${id} (id or box)` : 'fields'} the view cannot draw`;
      }
      if (typeof raw.converting !== 'boolean') return 'init: bad converting';
      if (raw.conversion !== undefined && !isStr(raw.conversion, 200)) return 'init: bad conversion';
      if (raw.notConverted !== undefined && typeof raw.notConverted !== 'boolean') return 'init: bad notConverted';
      if (raw.progress !== undefined && !isProgress(raw.progress)) return 'init: bad progress';
      if (raw.sourceNote !== undefined && !isStr(raw.sourceNote, 1000)) return 'init: bad sourceNote';
      return raw as unknown as InitMessage;
    case 'page':
      if (!isPageView(raw.page)) return 'page: bad page';
      return raw as unknown as PageMessage;
    case 'partial':
      if (!isStr(raw.conversion, 200) || !isPage(raw.page) || !isInt(raw.seq) || (raw.seq as number) < 1)
        return 'partial: bad conversion/page/seq';
      if (!isStr(raw.markdown, 10_000_000)) return 'partial: bad markdown';
      return {
        type: 'partial',
        uri: raw.uri as string,
        version: raw.version as number,
        conversion: raw.conversion,
        page: raw.page,
        seq: raw.seq as number,
        markdown: raw.markdown,
      };
    case 'highlight':
      if (raw.regionId !== undefined && !isRegionId(raw.regionId)) return 'highlight: bad regionId';
      return raw as unknown as HighlightMessage;
    case 'status':
      if (!isStr(raw.text) || !['info', 'warning', 'error'].includes(raw.level as string))
        return 'status: bad text/level';
      return raw as unknown as StatusMessage;
    case 'progress':
      if (!isProgress({ done: raw.done, total: raw.total })) return 'progress: bad done/total';
      return {
        type: 'progress',
        uri: raw.uri as string,
        version: raw.version as number,
        done: raw.done as number,
        total: raw.total as number,
      };
    case 'scrollTo':
      if (!isRegionId(raw.regionId)) return 'scrollTo: bad regionId';
      if (!isFraction(raw.fraction)) return 'scrollTo: bad fraction';
      return {
        type: 'scrollTo',
        uri: raw.uri as string,
        version: raw.version as number,
        regionId: raw.regionId,
        fraction: raw.fraction,
      };
    case 'finished':
      if (typeof raw.cancelled !== 'boolean' || !isInt(raw.pagesDone)) return 'finished: bad fields';
      return raw as unknown as FinishedMessage;
    default:
      return `unknown message type ${JSON.stringify(String(raw.type)).slice(0, 40)}`;
  }
}

/**
 * What the view shows when it refuses a message that would have drawn the document (`init`,
 * `page`): without it the view stays empty with no word (issue 34, E4). Undefined for the others.
 */
export function refusalNotice(raw: unknown, problem: string): string | undefined {
  if (!isRec(raw) || (raw.type !== 'init' && raw.type !== 'page')) return undefined;
  return (
    `Folio cannot show this document: ${problem}. ` +
    'Its .folio.json may not be one Folio wrote; convert the PDF again to replace it.'
  );
}
