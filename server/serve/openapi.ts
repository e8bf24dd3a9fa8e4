/**
 * The API description: request and response schemas of every route (docling-serve 1.31.0's v1
 * shapes plus Folio's additions), added to the document @fastify/swagger builds from the routes,
 * and the `/docs` page rendered from it on the server — plain HTML, no script, no remote
 * resource, under a Content-Security-Policy that allows none.
 *
 * The schemas describe; they are not used to validate or serialise (doclingOptions.ts validates,
 * and a serialising schema would drop the DoclingDocument's fields).
 */
import { DOCLING_OPTION_NAMES, TO_FORMATS } from './doclingOptions';
import { ERROR_KIND_CODES } from '../../common/protocol';
import { DOCLING_COMPONENT_TYPES, FAILURE_CATEGORIES } from './doclingErrors';
import { CONVERT_OPTIONS as O, optionSchema } from '../../common/requestModel';

/**
 * A node of an OpenAPI document as JSON (what @fastify/swagger returns): walked key by key, with
 * no schema type to check it against, hence `any`.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type OpenApiNode = Record<string, any>;

const str = { type: 'string' };
const bool = { type: 'boolean' };
const num = { type: 'number' };
const nullable = (s: object) => ({ anyOf: [s, { type: 'null' }] });

/** Options described precisely; the others of DOCLING_OPTION_NAMES are accepted with a warning. */
const OPTION_PROPS: Record<string, object> = {
  from_formats: {
    type: 'array',
    items: str,
    description: 'Input kinds accepted: Folio converts "pdf" and "image" (PNG, JPEG, TIFF).',
  },
  to_formats: {
    type: 'array',
    items: { type: 'string', enum: [...TO_FORMATS] },
    default: ['md'],
    description:
      'md, json (DoclingDocument), text and doctags are produced; html and the others are accepted with a warning and left null.',
  },
  image_export_mode: { type: 'string', enum: ['placeholder', 'embedded', 'referenced'], default: 'placeholder' },
  do_ocr: { ...bool, default: true, description: 'false: no OCR (Folio ocr=never).' },
  force_ocr: { ...bool, default: false, description: 'true: OCR every page (Folio ocr=always).' },
  pipeline: {
    type: 'string',
    enum: ['legacy', 'standard', 'vlm', 'asr'],
    default: 'standard',
    description: 'standard → Folio pipeline engine; vlm → granite-docling (as configured on the service).',
  },
  page_range: {
    type: 'array',
    items: { type: 'integer', minimum: 1 },
    minItems: 2,
    maxItems: 2,
    description: '[first, last], 1-based (a form repeats the field). Folio also takes "1-3,5".',
  },
  md_page_break_placeholder: { ...str, default: '', description: 'Put between pages in md_content.' },
  include_images: { ...bool, default: true, description: 'false: pictures as placeholders.' },
  images_scale: { ...optionSchema(O.scale), default: O.scale.default },
  table_mode: {
    type: 'string',
    enum: ['fast', 'accurate'],
    description: 'Accepted; Folio has one table reader (a warning when "fast").',
  },
  ocr_engine: str,
  ocr_lang: { type: 'array', items: str },
  pdf_backend: str,
  abort_on_error: bool,
  do_table_structure: bool,
  document_timeout: nullable(num),
  engine: { ...optionSchema(O.engine), description: 'Folio: the engine.' },
  ocr: { ...optionSchema(O.ocr), description: 'Folio: when to OCR.' },
  keep_furniture: { ...optionSchema(O.keepFurniture), description: 'Folio: keep page headers and footers.' },
  keep_hidden_text: {
    ...optionSchema(O.keepHiddenText),
    default: O.keepHiddenText.default,
    description:
      'Folio: keep text a reader of the page cannot see (white on white, covered, clipped, squeezed); left out and counted in the page warnings by default.',
  },
  scale: { ...optionSchema(O.scale), description: 'Folio: render scale.' },
  layout_prior: { ...optionSchema(O.layoutPrior), description: 'Folio: VLM layout prior.' },
  password: { ...str, description: "Folio: the PDF's password." },
};

function optionsSchema(): object {
  const properties: Record<string, object> = { ...OPTION_PROPS };
  for (const n of DOCLING_OPTION_NAMES)
    properties[n] ??= {
      description: 'docling-serve option: accepted; a warning in the response says it was not used.',
    };
  return { type: 'object', additionalProperties: false, properties };
}

const CHUNKING = {
  type: 'object',
  properties: {
    chunker: { type: 'string', enum: ['hybrid'] },
    max_tokens: {
      ...nullable({ type: 'integer', minimum: 16 }),
      description: 'Tokens per chunk (default 512, counted with cl100k).',
    },
    tokenizer: { ...str, description: 'Accepted; Folio counts with cl100k (a warning when another is named).' },
    merge_peers: bool,
    include_raw_text: bool,
    use_markdown_tables: bool,
    use_markdown_images: bool,
    image_placeholder: str,
  },
};

const SOURCE = {
  oneOf: [
    {
      type: 'object',
      required: ['kind', 'base64_string', 'filename'],
      properties: { kind: { const: 'file' }, base64_string: str, filename: str },
    },
    {
      type: 'object',
      required: ['kind', 'url'],
      properties: {
        kind: { const: 'http' },
        url: { type: 'string', format: 'uri' },
        headers: { type: 'object', additionalProperties: str },
      },
    },
  ],
};
const TARGET = { type: 'object', properties: { kind: { type: 'string', enum: ['inbody', 'zip'] } } };
const FILE_SOURCE = {
  type: 'object',
  required: ['base64_string', 'filename'],
  properties: { base64_string: str, filename: str },
};
const HTTP_SOURCE = {
  type: 'object',
  required: ['url'],
  properties: { url: str, headers: { type: 'object', additionalProperties: str } },
};

const EXPORT_DOCUMENT = {
  type: 'object',
  properties: {
    filename: str,
    md_content: nullable(str),
    json_content: { ...nullable({ type: 'object', description: 'A DoclingDocument (docling-core).' }) },
    html_content: nullable(str),
    text_content: nullable(str),
    doctags_content: nullable(str),
  },
};
// docling's ErrorItem (serve/doclingErrors.ts); `error_kind` is Folio's addition (docs/errors.md).
const ERROR_ITEM = {
  type: 'object',
  required: ['component_type', 'module_name', 'error_message', 'category', 'error_kind'],
  properties: {
    component_type: { type: 'string', enum: [...DOCLING_COMPONENT_TYPES] },
    module_name: str,
    error_message: str,
    category: { type: 'string', enum: [...FAILURE_CATEGORIES] },
    page_no: { type: 'integer', minimum: 1 },
    error_kind: { type: 'string', enum: Object.keys(ERROR_KIND_CODES) },
  },
};
const CONVERT_RESPONSE = {
  type: 'object',
  properties: {
    document: { $ref: '#/components/schemas/ExportDocumentResponse' },
    status: { type: 'string', enum: ['success', 'partial_success', 'failure', 'cancelled'] },
    errors: { type: 'array', items: { $ref: '#/components/schemas/ErrorItem' } },
    processing_time: num,
    timings: { type: 'object' },
    warnings: {
      type: 'array',
      items: str,
      description: 'Folio: options accepted but not used, and conversion warnings.',
    },
    task_id: str,
  },
};
const TASK_STATUS = {
  type: 'object',
  properties: {
    task_id: str,
    task_type: { type: 'string', enum: ['convert', 'chunk'] },
    task_status: { type: 'string', enum: ['pending', 'started', 'success', 'partial_success', 'failure', 'cancelled'] },
    task_position: nullable({ type: 'integer' }),
    task_meta: {
      type: 'object',
      properties: {
        num_docs: { type: 'integer' },
        num_processed: { type: 'integer' },
        num_succeeded: { type: 'integer' },
        num_failed: { type: 'integer' },
        pages_done: { type: 'integer' },
        pages_total: nullable({ type: 'integer' }),
      },
    },
    error_message: nullable(str),
  },
};
const CHUNK_ITEM = {
  type: 'object',
  properties: {
    filename: str,
    chunk_index: { type: 'integer' },
    text: { ...str, description: "Headings, then the chunk text (the chunker's contextualize())." },
    raw_text: nullable(str),
    num_tokens: nullable({ type: 'integer' }),
    headings: nullable({ type: 'array', items: str }),
    captions: nullable({ type: 'array', items: str }),
    doc_items: { type: 'array', items: str, description: 'References (#/texts/3) into the DoclingDocument.' },
    page_numbers: nullable({ type: 'array', items: { type: 'integer' } }),
    metadata: nullable({ type: 'object' }),
  },
};
const CHUNK_RESPONSE = {
  type: 'object',
  properties: {
    chunks: { type: 'array', items: { $ref: '#/components/schemas/ChunkedDocumentResultItem' } },
    documents: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          kind: { const: 'ExportResult' },
          content: { $ref: '#/components/schemas/ExportDocumentResponse' },
          status: str,
          errors: { type: 'array', items: { $ref: '#/components/schemas/ErrorItem' } },
        },
      },
    },
    processing_time: num,
    warnings: { type: 'array', items: str },
  },
};
const ERROR = {
  type: 'object',
  properties: {
    detail: str,
    error: { type: 'object', properties: { status: { type: 'integer' }, code: str, message: str } },
  },
};

const ref = (n: string) => ({ $ref: `#/components/schemas/${n}` });
const json = (schema: object) => ({ 'application/json': { schema } });
const errors = {
  '4XX': {
    description: 'A request the client can fix; `detail` says what to do.',
    content: json(ref('ErrorResponse')),
  },
  '503': {
    description: 'Queue full or too many connections: retry after Retry-After seconds.',
    content: json(ref('ErrorResponse')),
  },
};

function formSchema(prefix = ''): object {
  const opts = optionsSchema() as { properties: Record<string, object> };
  const properties: Record<string, object> = {
    files: { type: 'array', items: { type: 'string', format: 'binary' }, description: 'PDF, PNG, JPEG or TIFF files.' },
  };
  for (const [k, v] of Object.entries(opts.properties)) properties[prefix + k] = v;
  properties.target_type = { type: 'string', enum: ['inbody', 'zip'], default: 'inbody' };
  return { type: 'object', required: ['files'], properties };
}

const zip = { 'application/zip': { schema: { type: 'string', format: 'binary' } } };

/** A JSON body of sources for the convert routes. */
function sourceBody() {
  return {
    type: 'object',
    properties: {
      options: ref('ConvertDocumentsOptions'),
      sources: { type: 'array', items: SOURCE },
      file_sources: { type: 'array', items: FILE_SOURCE, description: 'Earlier spelling of sources[kind=file].' },
      http_sources: {
        type: 'array',
        items: HTTP_SOURCE,
        description: 'Earlier spelling of sources[kind=http]; fetched only with --allow-http-sources.',
      },
      target: TARGET,
      path: { ...str, description: 'Folio: a PDF by local path (only with --allow-local).' },
    },
  };
}

/** A JSON body of sources for the chunk routes. */
function chunkSourceBody() {
  const convert = sourceBody();
  return {
    type: 'object',
    properties: {
      convert_options: ref('ConvertDocumentsOptions'),
      chunking_options: ref('HybridChunkerOptions'),
      sources: { type: 'array', items: SOURCE },
      file_sources: convert.properties.file_sources,
      http_sources: convert.properties.http_sources,
      include_converted_doc: bool,
      target: TARGET,
    },
  };
}

/** A chunk route's form: convert_<option>, chunking_<option> (but the chunker) and include_converted_doc. */
function chunkFormSchema(): object {
  const chunkForm = formSchema('convert_') as { properties: Record<string, object> };
  for (const [k, v] of Object.entries(CHUNKING.properties))
    if (k !== 'chunker') chunkForm.properties[`chunking_${k}`] = v;
  chunkForm.properties.include_converted_doc = bool;
  return chunkForm;
}

const form = (schema: object) => ({ 'multipart/form-data': { schema } });

/** [path, method, request body (by content type) or none, the 200 answer (by content type)], one row per route described. */
type OperationDoc = [string, string, object | undefined, object];

function operations(): OperationDoc[] {
  const taskStatus = json(ref('TaskStatusResponse'));
  const converted = { ...json(ref('ConvertDocumentResponse')), ...zip };
  const chunked = json(ref('ChunkDocumentResponse'));
  return [
    ['/v1/convert/file', 'post', form(formSchema()), converted],
    ['/v1/convert/file/async', 'post', form(formSchema()), taskStatus],
    ['/v1/convert/source', 'post', json(sourceBody()), converted],
    ['/v1/convert/source/async', 'post', json(sourceBody()), taskStatus],
    ['/v1/chunk/hybrid/file', 'post', form(chunkFormSchema()), chunked],
    ['/v1/chunk/hybrid/file/async', 'post', form(chunkFormSchema()), taskStatus],
    ['/v1/chunk/hybrid/source', 'post', json(chunkSourceBody()), chunked],
    ['/v1/chunk/hybrid/source/async', 'post', json(chunkSourceBody()), taskStatus],
    ['/v1/status/poll/{task_id}', 'get', undefined, taskStatus],
    ['/v1/tasks/{task_id}/cancel', 'post', undefined, taskStatus],
    [
      '/v1/result/{task_id}',
      'get',
      undefined,
      { ...json({ oneOf: [ref('ConvertDocumentResponse'), ref('ChunkDocumentResponse')] }), ...zip },
    ],
    ['/health', 'get', undefined, json({ type: 'object', properties: { status: str } })],
    ['/ready', 'get', undefined, json({ type: 'object', properties: { status: str, runner: str } })],
    ['/version', 'get', undefined, json({ type: 'object', additionalProperties: str })],
  ];
}

/** Adds request bodies, responses and components to the document @fastify/swagger made. */
export function completeOpenApi(doc: OpenApiNode): OpenApiNode {
  doc.components ??= {};
  doc.components.schemas = {
    ...doc.components.schemas,
    ConvertDocumentsOptions: optionsSchema(),
    HybridChunkerOptions: CHUNKING,
    ExportDocumentResponse: EXPORT_DOCUMENT,
    ErrorItem: ERROR_ITEM,
    ConvertDocumentResponse: CONVERT_RESPONSE,
    TaskStatusResponse: TASK_STATUS,
    ChunkedDocumentResultItem: CHUNK_ITEM,
    ChunkDocumentResponse: CHUNK_RESPONSE,
    ErrorResponse: ERROR,
  };
  for (const [path, method, body, ok] of operations()) {
    const o = doc.paths?.[path]?.[method];
    if (!o) continue;
    if (body) o.requestBody = { required: true, content: body };
    o.responses = { '200': { description: 'OK', content: ok }, ...errors };
  }
  return doc;
}

const esc = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The `/docs` page: every route with its summary, request fields and response schema names. */
export function docsPage(doc: OpenApiNode): string {
  const rows: string[] = [];
  for (const [path, ops] of Object.entries<OpenApiNode>(doc.paths ?? {})) {
    for (const [method, o] of Object.entries<OpenApiNode>(ops)) {
      const body = o.requestBody?.content ?? {};
      const fields = Object.entries<OpenApiNode>(body).map(([type, c]) => {
        const s = c.schema?.$ref ? doc.components.schemas[c.schema.$ref.split('/').pop()] : c.schema;
        const props = Object.keys(s?.properties ?? {});
        return `<p><code>${esc(type)}</code>: ${props.map((p) => `<code>${esc(p)}</code>`).join(', ')}</p>`;
      });
      const ok = Object.entries<OpenApiNode>(o.responses?.['200']?.content ?? {}).map(
        ([type, c]) =>
          `<code>${esc(type)}</code> ${esc(c.schema?.$ref?.split('/').pop() ?? (c.schema?.oneOf ? c.schema.oneOf.map((x: OpenApiNode) => x.$ref?.split('/').pop()).join(' | ') : ''))}`,
      );
      rows.push(
        `<section><h2><span class="m">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code></h2><p>${esc(o.summary ?? '')}</p>${fields.join('')}${ok.length ? `<p>200: ${ok.join(', ')}</p>` : ''}</section>`,
      );
    }
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(doc.info?.title)} API</title><style>body{font:15px/1.5 system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em}code{background:#f3f3f3;padding:0 .2em}section{border-top:1px solid #ddd;padding:.5em 0}.m{font-weight:bold;color:#05a}h2{font-size:1.05em}</style></head><body><h1>${esc(doc.info?.title)} ${esc(doc.info?.version)}</h1><p>${esc(doc.info?.description)}</p><p>The machine-readable description: <a href="/openapi.json">/openapi.json</a> (OpenAPI ${esc(doc.openapi)}). Send the API key, when the service has one, in <code>X-Api-Key</code>.</p>${rows.join('')}</body></html>`;
}

export const DOCS_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
