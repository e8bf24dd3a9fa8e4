/**
 * The one protocol module shared by the extension host (src/) and the backend (server/).
 *
 * Each custom request or notification is a namespace with its `method`, its `type` and one
 * sentence saying which side sends it (the vscode-eslint convention). docs/protocol.md mirrors
 * this file for readers who do not read TypeScript.
 *
 * This module imports only `vscode-languageserver-protocol` (a dependency of both the client and
 * the server libraries), so either side can bundle it. It loads it when a message `type` is first
 * read: page workers and `folio convert` use this module's constants only, and evaluating the
 * library cost ~18 ms in each of their threads at start (issue 22's start-up).
 */
import type { ProgressType, RequestType, NotificationType } from 'vscode-languageserver-protocol';
import type { ChoiceOf, PagesFormat } from './requestModel';

type Lsp = typeof import('vscode-languageserver-protocol');

/** Defines `ns[key]` as built by `make` from the library on first read. */
function lazyType<T>(ns: object, key: string, make: (lsp: Lsp) => T): void {
  let value: T | undefined;
  Object.defineProperty(ns, key, {
    enumerable: true,
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, on purpose
    get: () => (value ??= make(require('vscode-languageserver-protocol') as Lsp)),
  });
}

/** Layout classes, Docling's layout vocabulary (DocTags tag names). */
export type RegionClass =
  | 'title'
  | 'section_header'
  | 'text'
  | 'list_item'
  | 'caption'
  | 'footnote'
  | 'formula'
  | 'code'
  | 'picture'
  | 'chart'
  | 'table'
  | 'page_header'
  | 'page_footer'
  | 'document_index'
  | 'form'
  | 'key_value_region'
  | 'checkbox_selected'
  | 'checkbox_unselected';

export const REGION_CLASSES: readonly RegionClass[] = [
  'title',
  'section_header',
  'text',
  'list_item',
  'caption',
  'footnote',
  'formula',
  'code',
  'picture',
  'chart',
  'table',
  'page_header',
  'page_footer',
  'document_index',
  'form',
  'key_value_region',
  'checkbox_selected',
  'checkbox_unselected',
];

/** A box in PDF points, top-left origin (y grows downwards), in the page's displayed orientation. */
export interface BBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** A box on DocTags' 0–500 grid (x0, y0, x1, y1; top-left origin; each value 0–499). */
export type GridBox = [number, number, number, number];

/** A half-open range of UTF-16 offsets into a Markdown string. */
export interface TextRange {
  start: number;
  end: number;
}

export type EngineName = ChoiceOf<'engine'>;

export interface Region {
  /** Stable within a conversion: `p<page>-r<index>` for regions found by the engine. */
  id: string;
  cls: RegionClass;
  /** Section header level (1 = top) or list nesting depth (0 = top level). */
  level?: number;
  bbox: BBox;
  grid: GridBox;
  /** Position in the page's reading order, 0-based. */
  order: number;
  /**
   * The Markdown this region produced, as offsets into `PageResult.markdown`; absent when the
   * region writes no Markdown (page furniture left out, an empty region).
   */
  mdRange?: TextRange;
  /**
   * A picture's or chart's saved crop, relative to the Markdown folder (`/` separators). Exports
   * read pictures from here, never from the Markdown text (issue 21 item 2).
   */
  imagePath?: string;
}

export interface PageResult {
  /** 1-based page number. */
  page: number;
  /** Page size in PDF points, as displayed (rotation applied). */
  width: number;
  height: number;
  /** The page's DocTags, without the `<doctag>` wrapper and without `<page_break>`. */
  doctags: string;
  markdown: string;
  regions: Region[];
  /** Absolute path of the rendered page image (PNG) in the cache folder, when rendered. */
  image?: string;
  /** Pixel size of `image`. */
  imageWidth?: number;
  imageHeight?: number;
  engine: EngineName;
  /** The onnxruntime execution provider that ran models for this page, when any ran. */
  provider?: string;
  /** True when the page had no usable text layer and was read with OCR. */
  ocr: boolean;
  /** Degrees the page content was rotated to read it upright (OCR rotation detection). */
  rotation?: number;
  /** Things the user should know about this page (a fallback, a part that could not be parsed). */
  warnings: string[];
  /** Set when the page could not be converted at all; the page then has empty content. */
  error?: string;
  /** Why, beside `error` (docs/errors.md). */
  errorKind?: ErrorKind;
}

export interface ConvertOptions {
  engine?: EngineName;
  /** Render page images (needed by the preview; the CLI skips it unless asked). */
  renderImages?: boolean;
  /** Render scale, 1 = 72 dpi (range and default: CONVERT_OPTIONS.scale, requestModel.ts). */
  scale?: number;
  /** OCR policy for pages without a usable text layer. */
  ocr?: ChoiceOf<'ocr'>;
  /** Keep page headers and footers in Markdown. */
  keepFurniture?: boolean;
  /**
   * Keep text a reader of the page cannot see (white on white, covered, clipped away, squeezed,
   * invisible); by default it is left out and counted in the page's warnings (docs/text-layer.md).
   */
  keepHiddenText?: boolean;
  /** Folder where page images are cached. Default: a folder under the OS temp dir. */
  cacheDir?: string;
  /** Folder where picture assets are written; Markdown links are relative to `markdownDir`. */
  assetsDir?: string;
  markdownDir?: string;
  /** VLM options (see server/vlm). */
  modelsDir?: string;
  providers?: string[];
  /** Layout prior for the VLM prompt (folio.vlm.layoutPrior). */
  layoutPrior?: ChoiceOf<'layoutPrior'>;
  /** Speculative decoding of VLM pages with the pipeline's drafts (folio.vlm.speculation; lossless). */
  speculation?: ChoiceOf<'speculation'>;
  /** Remote VLM over the OpenAI-compatible API instead of the local ONNX model (docs/remote-vlm.md). */
  remoteVlm?: RemoteVlmSettings;
}

export interface RemoteVlmSettings {
  /** Base URL ending in /v1, e.g. http://host:8000/v1. */
  url: string;
  model: string;
  apiKey?: string;
  /** Pages (or regions) in flight at once. Default 4. */
  parallel?: number;
  /** Per-request timeout in ms (no byte for this long, or the whole answer over 4×). Default 120000. */
  timeoutMs?: number;
  /** Attempts per page before falling back to the pipeline. Default 2. */
  attempts?: number;
  maxTokens?: number;
}

/**
 * Resource limits of one conversion (docs/limits.md). Absent fields take the defaults. The
 * extension sends the user's `folio.limits.*` settings here with every request, as it sends the
 * other settings in `options` (src/convertClient.ts): the backend never asks the client back.
 * Kept out of `ConvertOptions`, which the preview's sidecar stores: a file in the workspace must
 * not raise them.
 */
export interface ConvertLimits {
  /** Wall-clock budget of the whole document, seconds; 0 = none. Default 3600. */
  documentSeconds?: number;
  /** Memory budget of one page inside pdf.js (decoded streams, images), MB. Default 512. */
  pageMemoryMb?: number;
  /**
   * Most pages one conversion takes (the pages selected, else the document's page count),
   * checked before any page is enumerated; a document past it fails with `TooLarge`. Default 10000.
   */
  maxPages?: number;
  /**
   * Most cells read from one workbook or CSV table (XLSX, CSV: server/office); past it the rest is
   * left out with a warning, the cells read are converted. Default 1,000,000.
   */
  maxCells?: number;
}

/**
 * Accepted range of each limit (documentSeconds 0 turns the time budget off), checked by the
 * backend for every source (server/worker/limits.ts) and by the extension for its settings, so a
 * bad setting is named before it is sent. package.json's `folio.limits.*` minimum/maximum match.
 */
export const LIMIT_RANGES = {
  documentSeconds: { min: 0, max: 7 * 24 * 3600 },
  pageMemoryMb: { min: 16, max: 65536 },
  maxPages: { min: 1, max: 1_000_000 },
  maxCells: { min: 1, max: 100_000_000 },
} as const satisfies Record<keyof ConvertLimits, { min: number; max: number }>;

export interface ConvertParams {
  /** A `file:` URI or an absolute path of the PDF. */
  uri: string;
  limits?: ConvertLimits;
  /** Page selection, e.g. "1-3,7" (1-based). Default: all pages. */
  pages?: string;
  password?: string;
  options?: ConvertOptions;
  /** Work-done token the client created (LSP work-done progress). */
  workDoneToken?: string | number;
  /** Partial-result token: each finished page is sent as a `PageResult` through it, in page order. */
  partialResultToken?: string | number;
  /**
   * Ask for `folio/pagePartial` notifications (a page's text while the VLM is still writing it).
   * Needs `partialResultToken`, which the notifications carry to say which request they belong to.
   */
  pagePartials?: boolean;
}

export interface ConvertSummary {
  uri: string;
  pageCount: number;
  /** Pages converted, in page order (all pages sent through the partial-result token). */
  pagesDone: number[];
  cancelled: boolean;
  /** Whole-document DocTags (`<doctag>…<page_break>…</doctag>`) of the pages done. */
  doctags: string;
  /** Whole-document Markdown of the pages done. */
  markdown: string;
  /** Pages that failed; the others converted. `kind` says why (docs/errors.md), the message says it in words. */
  pageErrors: PageError[];
  warnings: string[];
  engine: EngineName;
  provider?: string;
  elapsedMs: number;
  /** When no partial-result token was given, the page results are returned here. */
  pages?: PageResult[];
  /** Set when a document limit stopped the conversion early; the pages done are kept. */
  stopped?: { limit: 'documentSeconds'; message: string };
}

/**
 * Why a document or a page failed (docs/errors.md). Every surface decides on this, never on a
 * message's words: the CLI's exit code, the extension's message, MCP's error and the HTTP status
 * each come from one table keyed by it. One kind per code in `FolioErrorCodes`.
 */
export type ErrorKind =
  | 'input'
  | 'not-found'
  | 'damaged'
  | 'encrypted'
  | 'password'
  | 'empty'
  | 'limit'
  | 'timeout'
  | 'memory'
  | 'model'
  | 'cancelled'
  | 'internal';

/** A page that failed: its number, why (`kind`), and a sentence for people. */
export interface PageError {
  page: number;
  kind: ErrorKind;
  message: string;
}

/** Error codes in `ResponseError.code` for documents that cannot be converted. */
export const FolioErrorCodes = {
  PasswordRequired: -32001,
  PasswordIncorrect: -32002,
  InvalidPdf: -32003,
  FileNotFound: -32004,
  EmptyDocument: -32005,
  TooLarge: -32006,
  ModelError: -32007,
  /** A page or document ran past its time limit. */
  Timeout: -32008,
  /** A page ran past its memory (a page worker's heap). */
  OutOfMemory: -32009,
  // The library's codes, written as literals so that reading them does not load the library (see
  // above); test/integration/errorKinds.test.ts checks each against its named constant.
  /** JSON-RPC's `ErrorCodes.InvalidParams`: a parameter has the wrong type or is out of range. */
  InvalidParams: -32602,
  /** LSP's `LSPErrorCodes.RequestCancelled`: a request its client cancelled. */
  RequestCancelled: -32800,
  /** JSON-RPC's `ErrorCodes.InternalError`: anything Folio did not foresee (a bug or a crashed worker). */
  InternalError: -32603,
} as const;

/** The code of each kind: the one table between the two (kindOfCode in errorKinds.ts reads it backwards). */
export const ERROR_KIND_CODES: Record<ErrorKind, (typeof FolioErrorCodes)[keyof typeof FolioErrorCodes]> = {
  input: FolioErrorCodes.InvalidParams,
  'not-found': FolioErrorCodes.FileNotFound,
  damaged: FolioErrorCodes.InvalidPdf,
  encrypted: FolioErrorCodes.PasswordRequired,
  password: FolioErrorCodes.PasswordIncorrect,
  empty: FolioErrorCodes.EmptyDocument,
  limit: FolioErrorCodes.TooLarge,
  timeout: FolioErrorCodes.Timeout,
  memory: FolioErrorCodes.OutOfMemory,
  model: FolioErrorCodes.ModelError,
  cancelled: FolioErrorCodes.RequestCancelled,
  internal: FolioErrorCodes.InternalError,
};

export namespace ConvertRequest {
  /** Sent by the client: convert a PDF; the server streams pages and answers with a summary. */
  export const method = 'folio/convert' as const;
  export declare const type: RequestType<ConvertParams, ConvertSummary, void>;
  export declare const partialResult: ProgressType<PageResult>;
}
lazyType(
  ConvertRequest,
  'type',
  (lsp) => new lsp.RequestType<ConvertParams, ConvertSummary, void>(ConvertRequest.method),
);
lazyType(ConvertRequest, 'partialResult', (lsp) => new lsp.ProgressType<PageResult>());

export interface ReparseRegionParams {
  uri: string;
  /** Version of the Markdown document the region map belongs to (echoed back). */
  version: number;
  page: number;
  regionId: string;
  /** The region's box in PDF points (top-left origin). */
  bbox: BBox;
  cls: RegionClass;
  password?: string;
  options?: ConvertOptions;
}

export interface ReparseRegionResult {
  uri: string;
  version: number;
  page: number;
  regionId: string;
  /** The region's DocTags element, e.g. `<text><loc_…>…</text>`. */
  doctags: string;
  /** The region's Markdown block (no trailing blank line). */
  markdown: string;
  engine: EngineName;
  warnings: string[];
}

export namespace ReparseRegionRequest {
  /** Sent by the client: re-parse one region of a page with a given box and class. */
  export const method = 'folio/reparseRegion' as const;
  export declare const type: RequestType<ReparseRegionParams, ReparseRegionResult, void>;
}
lazyType(
  ReparseRegionRequest,
  'type',
  (lsp) => new lsp.RequestType<ReparseRegionParams, ReparseRegionResult, void>(ReparseRegionRequest.method),
);

/**
 * Formats `folio/export` renders from converted pages (DocTags is the summary's own `doctags`);
 * every format, its names and its file extension: `OUTPUT_FORMATS` (requestModel.ts).
 */
export type ExportFormatName = PagesFormat;
export type PictureMode = 'link' | 'embed' | 'none';

export interface ExportParams {
  /** The PDF the pages came from (`file:` URI or absolute path): the document's name and origin hash. */
  uri: string;
  format: ExportFormatName;
  /** The conversion's pages, as `folio/convert` delivered them. */
  pages: PageResult[];
  /** Pictures: linked files under `picturesDir` (default), embedded as data URIs, or left out. */
  images?: PictureMode;
  /** Absolute folder the pages' picture links are relative to (the conversion's `markdownDir`). */
  picturesDir?: string;
  keepFurniture?: boolean;
  /** Chunk size limit in characters (chunks only). Default 2000. */
  chunkSize?: number;
  /**
   * Chunks only: `flat` (default here: the extension writes one file) or `docling` (docling-core's
   * DocChunk lines; their `doc_items` refer to the DoclingDocument returned as `document`).
   */
  chunkSchema?: 'docling' | 'flat';
}

export interface ExportResult {
  /** The file's whole text. */
  text: string;
  warnings: string[];
  /** With `chunkSchema: 'docling'`: the DoclingDocument (JSON text) the chunks' `doc_items` refer to. */
  document?: string;
}

export namespace ExportRequest {
  /** Sent by the client: render converted pages as a DoclingDocument or retrieval chunks (in a worker thread). Cancellable. */
  export const method = 'folio/export' as const;
  export declare const type: RequestType<ExportParams, ExportResult, void>;
}
lazyType(ExportRequest, 'type', (lsp) => new lsp.RequestType<ExportParams, ExportResult, void>(ExportRequest.method));

/**
 * A model download from the catalog (`folio models pull`): the extension asks the backend, so
 * the extension host runs no backend code of its own. Streamed I/O; work-done progress carries
 * `<model>: <file> (<pct>%)`; cancelling stops the transfer and keeps what was installed before.
 */
export interface PullModelParams {
  /** Catalog name: `granite-docling` or `heron`. */
  repo: string;
  /** Variant of a repository with dtype variants (`fp32`, `fp16`, `q8`, `q4`). */
  dtype: string;
  /** Absolute models root (`folio.modelsDir`). */
  dir: string;
  /** The user accepted files the catalog pins no checksum for (checked against the hub's listing). */
  trustHub: boolean;
  workDoneToken?: string | number;
}

export interface PullModelResult {
  /** The installed model's folder. */
  folder: string;
}

export namespace PullModelRequest {
  /** Sent by the client: download one catalog model into the models root. Cancellable. */
  export const method = 'folio/pullModel' as const;
  export declare const type: RequestType<PullModelParams, PullModelResult, void>;
}
lazyType(
  PullModelRequest,
  'type',
  (lsp) => new lsp.RequestType<PullModelParams, PullModelResult, void>(PullModelRequest.method),
);

export interface LogParams {
  level: 'info' | 'warning' | 'error';
  message: string;
}

export namespace LogNotification {
  /** Sent by the server: a line for the "Folio" output channel. */
  export const method = 'folio/log' as const;
  export declare const type: NotificationType<LogParams>;
}
lazyType(LogNotification, 'type', (lsp) => new lsp.NotificationType<LogParams>(LogNotification.method));

/**
 * A page still being written by the VLM (remote: as its server-sent events arrive). Throttled by
 * the backend (at most one per page every `PAGE_PARTIAL_INTERVAL_MS`); the page's `PageResult`
 * on the partial-result token always comes after its last partial and supersedes it. None is sent
 * after that, nor after the request is cancelled.
 */
export interface PagePartialParams {
  /** The `partialResultToken` of the `folio/convert` request this page belongs to. */
  partialResultToken: string | number;
  /** The request's `uri`. */
  uri: string;
  page: number;
  /** 1, 2, 3… per page within the request: a receiver drops a partial not newer than one it has. */
  seq: number;
  /**
   * The DocTags written so far (no `<doctag>` wrapper, a tag cut by the stream left out); may end
   * inside an element. Starts again from empty when the request to a remote server is retried.
   */
  doctags: string;
  /** `doctags` converted by the same tolerant parser and Markdown converter as the final page. */
  markdown: string;
  engine: EngineName;
}

/** Least time between two partials of one page, ms. */
export const PAGE_PARTIAL_INTERVAL_MS = 150;

export namespace PagePartialNotification {
  /** Sent by the server: the text so far of a page the VLM is writing (`ConvertParams.pagePartials`). */
  export const method = 'folio/pagePartial' as const;
  export declare const type: NotificationType<PagePartialParams>;
}
lazyType(
  PagePartialNotification,
  'type',
  (lsp) => new lsp.NotificationType<PagePartialParams>(PagePartialNotification.method),
);

/** Work-done progress message for a conversion: "page 3/12". */
export function pageProgressMessage(done: number, total: number): string {
  return `page ${done}/${total}`;
}

/** The pages a `pageProgressMessage` reports (`undefined` for any other message). */
export function parsePageProgress(message: string | undefined): { done: number; total: number } | undefined {
  const m = /^page (\d+)\/(\d+)$/.exec(message ?? '');
  return m ? { done: Number(m[1]), total: Number(m[2]) } : undefined;
}
