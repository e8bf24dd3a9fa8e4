/**
 * docling-serve's conversion and chunking options (its v1 API, docling-serve 1.31.0:
 * `ConvertDocumentsOptions`, `HybridChunkerOptions` — docs/serve.md lists them) read into what
 * Folio does. The ones Folio supports are mapped; the others are accepted, and each one that asks
 * for something Folio does not do adds a warning to the response, so an existing client keeps
 * working and is told what was not honoured. Folio's own option names stay accepted; a name
 * neither knows is refused, naming it.
 *
 * Form fields arrive as strings (a repeated field as a list); JSON bodies as JSON values. Both go
 * through the same reading.
 */
import { OptionsError, parseApiOptions, type ApiOptions } from './options';
import { CONVERT_OPTIONS, optionProblem } from '../../common/requestModel';

export type ToFormat = 'md' | 'json' | 'text' | 'doctags' | 'html';
export type ImageExportMode = 'placeholder' | 'embedded' | 'referenced';

/** What a request asks for, once read. */
export interface RequestOptions {
  /** Folio's conversion options (engine, OCR, pages…). */
  api: ApiOptions;
  /** Outputs to fill in the response's `document`. */
  toFormats: ToFormat[];
  imageMode: ImageExportMode;
  /** Put between pages' Markdown when set. */
  pageBreak?: string;
  /** Input kinds the client accepts (`from_formats`), undefined = any. */
  fromFormats?: string[];
  /** `return_as_file`: answer the zip (as `target_type=zip`). */
  returnAsFile?: boolean;
  warnings: string[];
}

/** HybridChunker or HierarchicalChunker options, read. */
export interface ChunkingRequest {
  /** The route's chunker: /v1/chunk/hybrid or /v1/chunk/hierarchical. */
  chunker: 'hybrid' | 'hierarchical';
  maxTokens: number;
  includeRawText: boolean;
  warnings: string[];
}

/** docling-serve's `to_formats` values (the OpenAPI document lists the same). */
export const TO_FORMATS = [
  'md',
  'json',
  'yaml',
  'html',
  'html_split_page',
  'text',
  'doctags',
  'vtt',
  'doclang',
  'dclx',
  'chunks',
] as const;
const FROM_FORMATS = [
  'docx',
  'doc',
  'pptx',
  'ppt',
  'html',
  'image',
  'pdf',
  'asciidoc',
  'md',
  'csv',
  'xlsx',
  'xls',
  'odt',
  'ods',
  'odp',
  'xml_uspto',
  'xml_jats',
  'xml_xbrl',
  'xml_doclang',
  'dclx',
  'mets_gbs',
  'json_docling',
  'audio',
  'video',
  'vtt',
  'latex',
  'email',
  'epub',
  'boxnote',
  'iwork_pages',
  'ebcdic',
] as const;
const PIPELINES = ['legacy', 'standard', 'vlm', 'asr'] as const;
const PDF_BACKENDS = [
  'pypdfium2',
  'docling_parse',
  'threaded_docling_parse',
  'dlparse_v1',
  'dlparse_v2',
  'dlparse_v4',
] as const;

/** Options accepted and not used: a warning when given a value other than these (undefined: any value warns). */
const IGNORED: Record<string, { quiet?: unknown[]; why: string }> = {
  ocr_engine: { quiet: ['auto'], why: 'Folio reads scans with its own OCR (PaddleOCR)' },
  ocr_lang: { quiet: [[]], why: "Folio's OCR model reads Latin-script text without a language setting" },
  ocr_preset: { why: 'Folio has one OCR engine' },
  ocr_custom_config: { quiet: [null], why: 'Folio has one OCR engine' },
  pdf_backend: { quiet: ['docling_parse'], why: 'Folio reads PDFs with pdf.js' },
  table_mode: { quiet: ['accurate'], why: 'Folio has one table reader (no fast/accurate TableFormer modes)' },
  table_cell_matching: { quiet: [true], why: 'Folio always matches table cells to the PDF text' },
  do_table_structure: { quiet: [true], why: 'Folio always reads table structure' },
  document_timeout: { quiet: [null], why: "the service's --task-timeout applies" },
  abort_on_error: {
    quiet: [false],
    why: 'Folio keeps converting the other pages when one fails (the page is listed in errors)',
  },
  do_pdf_heading_hierarchy: { quiet: [false, true], why: '' },
  pdf_heading_hierarchy_options: { quiet: [null], why: 'Folio infers heading levels its own way' },
  include_page_images: { quiet: [false], why: 'Folio does not return page images' },
  chunking_options: { quiet: [null], why: 'chunking is done by /v1/chunk/hybrid/*' },
  chunking_preset: { quiet: [null], why: 'chunking is done by /v1/chunk/hybrid/*' },
  do_code_enrichment: { quiet: [false], why: 'Folio reads code blocks from the text layer; no code OCR model' },
  do_formula_enrichment: { quiet: [false, true], why: '' },
  do_picture_classification: { quiet: [false], why: 'Folio does not classify pictures' },
  do_chart_extraction: { quiet: [false], why: 'Folio does not extract chart data' },
  do_picture_description: { quiet: [false], why: 'Folio does not describe pictures' },
  picture_description_area_threshold: { why: 'Folio does not describe pictures' },
  picture_description_local: { quiet: [null], why: 'Folio does not describe pictures' },
  picture_description_api: { quiet: [null], why: 'Folio does not describe pictures' },
  picture_description_preset: { quiet: [null], why: 'Folio does not describe pictures' },
  picture_description_custom_config: { quiet: [null], why: 'Folio does not describe pictures' },
  vlm_pipeline_model: {
    quiet: [null, 'granite_docling'],
    why: "Folio's VLM is granite-docling (start the service with --engine vlm / --vlm-url)",
  },
  vlm_pipeline_model_local: {
    quiet: [null],
    why: 'the VLM is set by the service (--models, --vlm-url), never by a request',
  },
  vlm_pipeline_model_api: {
    quiet: [null],
    why: 'the VLM is set by the service (--models, --vlm-url), never by a request',
  },
  vlm_pipeline_preset: { quiet: [null, 'default', 'granite_docling'], why: 'the VLM is set by the service' },
  vlm_pipeline_custom_config: { quiet: [null], why: 'the VLM is set by the service' },
  code_formula_preset: { quiet: [null], why: 'Folio reads formulas from the text layer' },
  code_formula_custom_config: { quiet: [null], why: 'Folio reads formulas from the text layer' },
  table_structure_preset: { quiet: [null], why: 'Folio has one table reader' },
  table_structure_custom_config: { quiet: [null], why: 'Folio has one table reader' },
  layout_custom_config: { quiet: [null], why: 'Folio has one layout analysis' },
  layout_preset: { quiet: [null], why: 'Folio has one layout analysis' },
  picture_classification_preset: { quiet: [null], why: 'Folio does not classify pictures' },
  picture_classification_custom_config: { quiet: [null], why: 'Folio does not classify pictures' },
  md_page_break_placeholder: { quiet: [], why: '' }, // mapped below
};

/** The docling-serve option names this service reads (mapped or accepted with a warning). */
export const DOCLING_OPTION_NAMES = [
  'from_formats',
  'to_formats',
  'image_export_mode',
  'do_ocr',
  'force_ocr',
  'pipeline',
  'page_range',
  'include_images',
  'images_scale',
  'return_as_file',
  ...Object.keys(IGNORED),
];

const FOLIO_NAMES = ['engine', 'ocr', 'keep_furniture', 'keep_hidden_text', 'scale', 'layout_prior', 'password'];

function list(v: unknown): unknown[] {
  if (v === undefined || v === null) return [];
  return Array.isArray(v) ? v : [v];
}

function bool(name: string, v: unknown): boolean | undefined {
  const x = Array.isArray(v) ? v[v.length - 1] : v;
  if (x === undefined || x === null) return undefined;
  if (typeof x === 'boolean') return x;
  if (x === 'true' || x === '1' || x === 'True') return true;
  if (x === 'false' || x === '0' || x === 'False') return false;
  throw new OptionsError(`option "${name}" must be true or false, not ${JSON.stringify(x).slice(0, 50)}`);
}

function oneOf<T extends string>(name: string, v: unknown, allowed: readonly T[]): T | undefined {
  const x = Array.isArray(v) ? v[v.length - 1] : v;
  if (x === undefined || x === null) return undefined;
  if (typeof x !== 'string' || !(allowed as readonly string[]).includes(x))
    throw new OptionsError(
      `option "${name}" must be one of ${allowed.join(', ')}, not ${JSON.stringify(x).slice(0, 50)}`,
    );
  return x as T;
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** A form string that holds JSON (docling-serve sends nested options as JSON text in forms). */
function formValue(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(formValue);
  if (typeof v !== 'string') return v;
  const t = v.trim();
  if (t === 'null' || t === '') return null;
  if (/^[[{]/.test(t)) {
    try {
      return JSON.parse(t);
    } catch {
      return v;
    }
  }
  if (/^-?\d+(\.\d+)?$/.test(t)) return Number(t);
  return v === 'true' ? true : v === 'false' ? false : v;
}

/** docling-serve's `page_range` ([first, last], 1-based; a form repeats the field) or Folio's "1-3,5". */
function pageRange(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number') v = String(v);
  if (typeof v === 'string' && !/^\[/.test(v.trim())) {
    if (!/^[0-9 ,-]+$/.test(v) || v.length > 200)
      throw new OptionsError('option "page_range" must be [first, last] (1-based) or a list such as "1-3,5"');
    return v;
  }
  const parts = (typeof v === 'string' ? (JSON.parse(v) as unknown[]) : list(v)).map((x) => Number(x));
  if (parts.length !== 2 || !parts.every((n) => Number.isInteger(n) && n >= 1))
    throw new OptionsError('option "page_range" must be two page numbers [first, last], starting at 1');
  const [a, b] = parts as [number, number];
  if (b < a) throw new OptionsError(`option "page_range" [${a}, ${b}]: the last page comes before the first`);
  // docling-serve's default is [1, sys.maxsize]: "to the end".
  return b >= 1_000_000 ? `${a}-` : `${a}-${b}`;
}

/**
 * Reads one request's options. `raw` is the form's fields (strings, lists for repeated fields)
 * or the JSON body's `options` object.
 */
export function readOptions(raw: Record<string, unknown>, form: boolean): RequestOptions {
  const warnings: string[] = [];
  const get = (k: string) => (form ? formValue(raw[k]) : raw[k]);
  const folio: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (!FOLIO_NAMES.includes(k) && !DOCLING_OPTION_NAMES.includes(k))
      throw new OptionsError(`option "${k}" is not known (neither docling-serve's nor Folio's): see /docs`);
    if (!FOLIO_NAMES.includes(k)) continue;
    folio[k] = Array.isArray(v) ? v[v.length - 1] : v;
    // docling-serve's own tests send `ocr: True` (a name docling-serve ignores): read a boolean as do_ocr.
    if (k === 'ocr' && [true, false, 'true', 'false', 'True', 'False'].includes(folio[k] as never))
      folio[k] = String(folio[k]).toLowerCase() === 'true' ? 'auto' : 'never';
  }
  // Folio's own names, as before (ajv coerces form strings).
  const api = parseApiOptions(folio);

  const to = list(get('to_formats')).map((x) => oneOf('to_formats', x, TO_FORMATS)!);
  const toFormats: ToFormat[] = [];
  for (const f of to.length > 0 ? to : ['md']) {
    if (f === 'md' || f === 'json' || f === 'text' || f === 'doctags') toFormats.push(f);
    else if (f === 'html') {
      toFormats.push('html');
      warnings.push('to_formats "html": Folio does not write HTML; html_content is null (use md_content)');
    } else warnings.push(`to_formats "${f}": not produced by Folio (it writes md, json, text and doctags)`);
  }
  const from = list(get('from_formats')).map((x) => oneOf('from_formats', x, FROM_FORMATS)!);

  let imageMode =
    oneOf('image_export_mode', get('image_export_mode'), ['placeholder', 'embedded', 'referenced'] as const) ??
    'embedded';
  const includeImages = bool('include_images', get('include_images'));
  if (includeImages === false) imageMode = 'placeholder';

  const doOcr = bool('do_ocr', get('do_ocr'));
  const forceOcr = bool('force_ocr', get('force_ocr'));
  if (forceOcr) api.ocr = 'always';
  else if (doOcr === false) api.ocr = 'never';

  const pipeline = oneOf('pipeline', get('pipeline'), PIPELINES);
  if (pipeline === 'vlm') api.engine = 'vlm';
  else if (pipeline === 'standard') api.engine ??= 'pipeline';
  else if (pipeline)
    warnings.push(`pipeline "${pipeline}": Folio has the standard and vlm pipelines; the standard one was used`);

  const range = pageRange(get('page_range'));
  if (range !== undefined) api.page_range = range;
  const scale = get('images_scale');
  if (scale !== undefined && scale !== null) {
    const s = Number(scale);
    const problem = optionProblem(CONVERT_OPTIONS.scale, s);
    if (problem) throw new OptionsError(`option "images_scale" ${problem}`);
    api.scale = s;
  }
  oneOf('pdf_backend', get('pdf_backend'), PDF_BACKENDS);
  oneOf('table_mode', get('table_mode'), ['fast', 'accurate'] as const);
  const pageBreak = get('md_page_break_placeholder');
  if (pageBreak !== undefined && pageBreak !== null && typeof pageBreak !== 'string')
    throw new OptionsError('option "md_page_break_placeholder" must be a string');
  if (typeof pageBreak === 'string' && pageBreak.length > 1000)
    throw new OptionsError('option "md_page_break_placeholder" is longer than 1000 characters');

  for (const [k, rule] of Object.entries(IGNORED)) {
    if (!(k in raw) || k === 'md_page_break_placeholder') continue;
    const v = get(k);
    if (k === 'ocr_lang') {
      if (list(v).length > 0)
        warnings.push(`ocr_lang ${JSON.stringify(list(v)).slice(0, 80)}: accepted, not used (${rule.why})`);
      continue;
    }
    const value = Array.isArray(v) && form ? v[v.length - 1] : v;
    if (rule.quiet?.some((q) => sameValue(q, value))) continue;
    warnings.push(`${k} ${JSON.stringify(value ?? null).slice(0, 80)}: accepted, not used (${rule.why})`);
  }
  // docling-serve's UI option: the answer is the zip, as target_type=zip / target {"kind": "zip"} give it.
  const returnAsFile = bool('return_as_file', get('return_as_file')) === true;

  return {
    api,
    toFormats,
    imageMode,
    ...(typeof pageBreak === 'string' && pageBreak !== '' ? { pageBreak } : {}),
    ...(from.length > 0 ? { fromFormats: from } : {}),
    ...(returnAsFile ? { returnAsFile } : {}),
    warnings,
  };
}

/**
 * The largest chunk Folio makes, in tokens: HybridChunker sizes chunks for an embedding model, and
 * the longest inputs of those in use end here (OpenAI's text-embedding-3: 8,191 tokens; docling's
 * default all-MiniLM-L6-v2: 256). A larger `max_tokens` (docling-serve allows any) is cut to it with a
 * warning: past it a chunk only costs time (security round 4, N2).
 */
export const MAX_CHUNK_TOKENS = 8192;

/** HybridChunker's options (form: `chunking_` prefix removed by the caller). */
export function readChunking(
  raw: Record<string, unknown>,
  form: boolean,
  route: 'hybrid' | 'hierarchical' = 'hybrid',
): ChunkingRequest {
  const warnings: string[] = [];
  const get = (k: string) => (form ? formValue(raw[k]) : raw[k]);
  const known = [
    'chunker',
    'use_markdown_tables',
    'use_markdown_images',
    'image_placeholder',
    'include_raw_text',
    'max_tokens',
    'tokenizer',
    'merge_peers',
  ];
  for (const k of Object.keys(raw))
    if (!known.includes(k))
      throw new OptionsError(`chunking option "${k}" is not known (HybridChunker takes ${known.join(', ')})`);
  const chunker = get('chunker');
  if (chunker !== undefined && chunker !== null && chunker !== route)
    throw new OptionsError(
      `chunking option "chunker" must be "${route}" on /v1/chunk/${route}, not ${JSON.stringify(chunker)}`,
    );
  if (route === 'hierarchical') {
    // HierarchicalChunker sizes nothing: one chunk per item, a list's items together.
    for (const k of ['max_tokens', 'tokenizer', 'merge_peers'])
      if (get(k) !== undefined && get(k) !== null)
        warnings.push(`${k}: accepted, not used (HierarchicalChunker does not size chunks)`);
    if (bool('use_markdown_tables', get('use_markdown_tables')) === true)
      warnings.push('use_markdown_tables: tables are written as Folio serialises them');
    return {
      chunker: route,
      maxTokens: Number.MAX_SAFE_INTEGER,
      includeRawText: bool('include_raw_text', get('include_raw_text')) ?? false,
      warnings,
    };
  }
  const mt = get('max_tokens');
  let maxTokens = 512;
  if (mt !== undefined && mt !== null) {
    const n = Number(mt);
    if (!Number.isInteger(n) || n < 16 || n > 100_000)
      throw new OptionsError('chunking option "max_tokens" must be a whole number from 16 to 100000');
    maxTokens = n;
    if (n > MAX_CHUNK_TOKENS) {
      maxTokens = MAX_CHUNK_TOKENS;
      warnings.push(
        `max_tokens ${n}: chunks are cut at ${MAX_CHUNK_TOKENS} tokens, the longest input of the embedding models chunks are made for`,
      );
    }
  }
  const tok = get('tokenizer');
  if (typeof tok === 'string' && tok !== 'sentence-transformers/all-MiniLM-L6-v2')
    warnings.push(
      `tokenizer "${tok.slice(0, 100)}": Folio counts tokens with its own tokenizer (cl100k); sizes are close to, not equal to, that model's`,
    );
  if (bool('merge_peers', get('merge_peers')) === false)
    warnings.push('merge_peers false: Folio always merges small neighbouring chunks under the same headings');
  if (bool('use_markdown_tables', get('use_markdown_tables')) === true)
    warnings.push('use_markdown_tables: tables are written as Folio serialises them');
  if (bool('use_markdown_images', get('use_markdown_images')) === true)
    warnings.push('use_markdown_images: pictures are not written into chunk text');
  return {
    chunker: route,
    maxTokens,
    includeRawText: bool('include_raw_text', get('include_raw_text')) ?? false,
    warnings,
  };
}
