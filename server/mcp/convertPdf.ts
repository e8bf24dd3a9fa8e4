/**
 * The `convert_pdf` tool {path, pages?, format?, password?, chunkSize?}: converts a PDF, a scan,
 * or a Word/PowerPoint/Excel/HTML/Markdown/CSV document (read from its own structure, issue 41)
 * inside the allowed folders (a path or a `file://` URI) and returns its Markdown (or
 * Docling-shaped retrieval chunks, DocTags, a DoclingDocument as compact JSON). The name stays
 * `convert_pdf` so clients configured for it keep working; its description lists every kind. Sends `notifications/progress`
 * per page when the client gave a progress token; a `notifications/cancelled` stops the
 * conversion (the SDK aborts the request's signal). A document converted before (same bytes,
 * pages and password) comes from the cache (cache.ts).
 */
import { relative } from 'node:path';
import type { McpServer, ToolCallback } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ConvertSummary, PageResult } from '../../common/protocol';
import { convertDocument } from '../convert/convertDocument';
import { renderExport } from '../export';
import { renderOutput } from '../export/output';
import {
  DEFAULT_OUTPUT_FORMAT,
  OUTPUT_FORMATS,
  acceptedFormatNames,
  formatNames,
  outputFormatOf,
} from '../../common/requestModel';
import { kindOf, messageOf } from '../errors';
import { cacheKey, fileSha256, type CachedConversion } from './cache';
import { toolError, type ToolError } from './toolErrors';
import type { ToolContext } from './toolContext';
import { nothingConverted } from '../../common/errorKinds';

/** The tool's own default, under the name it shows (`markdown`). */
const DEFAULT_FORMAT = OUTPUT_FORMATS[DEFAULT_OUTPUT_FORMAT].alias;

/** The tool's arguments (exported for test/unit/requestModel.test.ts, which holds `format` to the table). */
export const inputSchema = {
  path: z
    .string()
    .describe(
      'Path of the PDF, scan, .docx, .pptx, .xlsx, .html/.htm, .md or .csv (absolute, relative to the first allowed folder, or a file:// URI)',
    ),
  pages: z
    .string()
    .regex(/^\s*\d+(\s*-\s*\d+)?(\s*,\s*\d+(\s*-\s*\d+)?)*\s*$/)
    .optional()
    .describe('Pages, e.g. "1-3,7" (default: all); slides of a .pptx, sheets of a .xlsx; a .docx or .html is one page'),
  format: z
    .enum(acceptedFormatNames('mcp') as [string, ...string[]])
    .optional()
    .describe(`Output format: ${formatNames('mcp').join(', ')} (default ${DEFAULT_FORMAT})`),
  chunkSize: z
    .number()
    .int()
    .min(16)
    .max(1_000_000)
    .optional()
    .describe('chunks: size limit in characters (default 2000)'),
  password: z
    .string()
    .max(1024)
    .optional()
    .describe('Password of an encrypted PDF (encrypted Office files are refused: they need an unprotected copy)'),
};

/** Warnings passed on in a result's notes. */
const MAX_WARNINGS = 20;

type Call = Parameters<ToolCallback<typeof inputSchema>>;
type Args = Call[0];
type Extra = Call[1];

export function registerConvertPdf(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'convert_pdf',
    {
      title: 'Convert a PDF or an Office/HTML document to Markdown',
      description:
        'Converts a PDF on this machine to Markdown (Folio: text layer, OCR for scans, layout, tables, reading order), ' +
        'or a Word, PowerPoint, Excel, HTML, Markdown or CSV document (.docx, .pptx, .xlsx, .html, .htm, .md, .csv) read from its own structure: ' +
        'headings, lists, tables, equations; a slide or a sheet is a page. ' +
        "format: markdown (default), chunks (JSON Lines for retrieval in Docling's DocChunk shape: text, meta.headings, meta.doc_items with pages and boxes), doctags, or docling (DoclingDocument JSON, compact). " +
        `Only files inside ${ctx.roots.roots.join(', ')} may be read; relative paths are relative to the first; file:// URIs are accepted. ` +
        'A document converted before (same content) is answered from the cache.',
      inputSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args, extra) => convertPdf(ctx, args, extra),
  );
}

async function convertPdf(ctx: ToolContext, args: Args, extra: Extra): Promise<CallToolResult> {
  let path: string;
  try {
    path = ctx.roots.check(args.path);
  } catch (e) {
    return toolError('input', messageOf(e));
  }
  const label = relative(ctx.roots.roots[0]!, path) || path;
  try {
    const done = await cachedOrConverted(ctx, path, label, args, extra);
    if ('isError' in done) return done;
    return answer(rendered(ctx, path, done, args), done.summary, ctx.maxChars);
  } catch (e) {
    return toolError(kindOf(e), `${label}: ${messageOf(e).split('\n')[0]}`);
  }
}

/** The conversion from the cache, or run now and kept when it is whole. */
async function cachedOrConverted(
  ctx: ToolContext,
  path: string,
  label: string,
  args: Args,
  extra: Extra,
): Promise<CachedConversion | ToolError> {
  const { cache } = ctx;
  const key = cacheKey(await fileSha256(path), { pages: args.pages, password: args.password });
  const cached = cache.get(key);
  if (cached) {
    cache.hits++;
    ctx.log(
      'info',
      `${label}: from the cache (same content converted before; ${cache.hits} cached, ${cache.misses} converted)`,
    );
    return cached;
  }
  const done = await converted(ctx, path, label, args, extra);
  if ('isError' in done) return done;
  const { summary } = done;
  cache.misses++;
  // Only a whole conversion of the bytes it was keyed by is kept (the file may have changed meanwhile).
  const complete = summary.pageErrors.length === 0 && !summary.stopped;
  if (complete && cacheKey(await fileSha256(path), { pages: args.pages, password: args.password }) === key)
    cache.set(key, done);
  ctx.log(
    'info',
    `${label}: converted ${summary.pagesDone.length} pages (${cache.hits} cached, ${cache.misses} converted)`,
  );
  return done;
}

/** Runs the conversion, with a progress notification per page; a cancelled or wholly failed one is a tool error. */
async function converted(
  ctx: ToolContext,
  path: string,
  label: string,
  args: Args,
  extra: Extra,
): Promise<CachedConversion | ToolError> {
  const token = extra._meta?.progressToken;
  const pages: PageResult[] = [];
  // Progress notifications are awaited before the result goes out: the client drops progress
  // for a request it already has the answer to.
  const notified: Promise<void>[] = [];
  const summary = await convertDocument(
    ctx.pool,
    {
      uri: path,
      pages: args.pages,
      password: args.password,
      limits: ctx.limits,
      options: { engine: 'pipeline', ocr: 'auto' },
    },
    {
      page: (p) => pages.push(p),
      progress: (n, total) => {
        if (token === undefined) return;
        notified.push(
          extra
            .sendNotification({
              method: 'notifications/progress',
              params: { progressToken: token, progress: n, total, message: `${label}: page ${n}/${total}` },
            })
            .catch(() => undefined),
        );
      },
    },
    extra.signal,
  );
  await Promise.all(notified);
  if (summary.cancelled || extra.signal.aborted) {
    ctx.log('info', `conversion of ${label} cancelled after ${summary.pagesDone.length} of ${summary.pageCount} pages`);
    return toolError('cancelled', `cancelled after ${summary.pagesDone.length} pages`);
  }
  const failed = nothingConverted(summary);
  if (failed) return toolError(failed.kind, `${label}: ${failed.message}`);
  return { summary, pages: pages.sort((a, b) => a.page - b.page) };
}

/** The conversion in the format asked for (common/requestModel.ts names it; `renderOutput` renders it). */
function rendered(ctx: ToolContext, path: string, done: CachedConversion, args: Args): string {
  // The schema admits only the names of the table's formats, so the lookup cannot miss.
  const format = outputFormatOf(args.format ?? DEFAULT_OUTPUT_FORMAT)!;
  // JSON compact: an agent's context pays for every indentation space.
  return renderOutput(
    {
      format,
      summary: done.summary,
      pdfPath: path,
      pages: done.pages,
      images: 'none',
      imagesBaseDir: ctx.roots.roots[0]!,
      keepFurniture: false,
      chunk: { maxSize: args.chunkSize ?? 2000, unit: 'chars' },
      json: 'compact',
    },
    () => renderExport,
  ).text;
}

/**
 * The text, cut at `maxChars`, and a second part with the notes: failed pages, the document's
 * warnings (a workbook past the cell limit, a picture not saved: what is missing must be said),
 * the cut.
 */
function answer(text: string, summary: ConvertSummary, maxChars: number): CallToolResult {
  const notes = summary.pageErrors.map((e) => `page ${e.page} failed: ${e.message}`);
  // Bounded: a long PDF may warn on many pages, and the agent's context pays for each line.
  for (const w of summary.warnings.slice(0, MAX_WARNINGS)) notes.push(`warning: ${w}`);
  if (summary.warnings.length > MAX_WARNINGS)
    notes.push(`(${summary.warnings.length - MAX_WARNINGS} more warnings not shown)`);
  if (text.length > maxChars) {
    notes.push(`output cut at ${maxChars} of ${text.length} characters: ask for fewer pages (pages argument)`);
    text = text.slice(0, maxChars);
  }
  const content: { type: 'text'; text: string }[] = [{ type: 'text', text }];
  if (notes.length > 0) content.push({ type: 'text', text: notes.join('\n') });
  return { content };
}
