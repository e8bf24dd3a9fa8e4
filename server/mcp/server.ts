/**
 * `folio mcp <folder>...`: Folio as a Model Context Protocol server over stdio (the official
 * TypeScript SDK). Tools:
 * - `convert_pdf` {path, pages?, format?, password?, chunkSize?}: converts a PDF inside the
 *   allowed folders (a path or a `file://` URI) and returns its Markdown (or Docling-shaped
 *   retrieval chunks, DocTags, a DoclingDocument as compact JSON). Sends
 *   `notifications/progress` per page when the client gave a progress token; a
 *   `notifications/cancelled` stops the conversion (the SDK aborts the request's signal). A
 *   document converted before (same bytes, pages and password) comes from the cache (cache.ts).
 * - `list_pdfs`: the files in the allowed folders that `convert_pdf` accepts (list.ts).
 * stdout carries the protocol only; diagnostics go to stderr and to MCP logging.
 */
import { relative } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import type { PageResult } from '../../common/protocol';
import { PageWorkerPool } from '../worker/pool';
import { convertDocument } from '../convert/convertDocument';
import { disposeVlmEngines } from '../convert/vlmEngine';
import { renderExport } from '../export';
import { AllowedRoots, PathError } from './paths';
import { listConvertible } from './list';
import { cacheKey, ConversionCache, fileSha256, type CachedConversion } from './cache';
import { toolError } from './toolErrors';
import { kindOf, messageOf, UsageError } from '../errors';
import { wantsHelp } from '../flags/table';
import { MCP_USAGE, parseMcpArgs, type McpOptions } from './args';

export function createFolioMcpServer(opts: McpOptions): { server: McpServer; close: () => Promise<void> } {
  const roots = new AllowedRoots(opts.folders);
  const pool = new PageWorkerPool({ size: opts.jobs });
  const cache = new ConversionCache();
  const server = new McpServer({ name: 'folio', version: '0.1.0' }, { capabilities: { logging: {} } });
  const log = (level: 'info' | 'warning' | 'error', data: string) => {
    process.stderr.write(`folio mcp: ${data}\n`);
    void server.server.sendLoggingMessage({ level, logger: 'folio', data }).catch(() => undefined);
  };

  server.registerTool(
    'convert_pdf',
    {
      title: 'Convert a PDF to Markdown',
      description:
        'Converts a PDF on this machine to Markdown (Folio: text layer, OCR for scans, layout, tables, reading order). ' +
        "format: markdown (default), chunks (JSON Lines for retrieval in Docling's DocChunk shape: text, meta.headings, meta.doc_items with pages and boxes), doctags, or docling (DoclingDocument JSON, compact). " +
        `Only files inside ${roots.roots.join(', ')} may be read; relative paths are relative to the first; file:// URIs are accepted. ` +
        'A document converted before (same content) is answered from the cache.',
      inputSchema: {
        path: z.string().describe('Path of the PDF (absolute, relative to the first allowed folder, or a file:// URI)'),
        pages: z
          .string()
          .regex(/^\s*\d+(\s*-\s*\d+)?(\s*,\s*\d+(\s*-\s*\d+)?)*\s*$/)
          .optional()
          .describe('Pages, e.g. "1-3,7" (default: all)'),
        format: z
          .enum(['markdown', 'chunks', 'doctags', 'docling'])
          .optional()
          .describe('Output format (default markdown)'),
        chunkSize: z
          .number()
          .int()
          .min(16)
          .max(1_000_000)
          .optional()
          .describe('chunks: size limit in characters (default 2000)'),
        password: z.string().max(1024).optional().describe('Password of an encrypted PDF'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args, extra) => {
      let path: string;
      try {
        path = roots.check(args.path);
      } catch (e) {
        return toolError('input', messageOf(e));
      }
      const token = extra._meta?.progressToken;
      const label = relative(roots.roots[0]!, path) || path;
      try {
        const key = cacheKey(await fileSha256(path), { pages: args.pages, password: args.password });
        let done: CachedConversion | undefined = cache.get(key);
        if (done) {
          cache.hits++;
          log(
            'info',
            `${label}: from the cache (same content converted before; ${cache.hits} cached, ${cache.misses} converted)`,
          );
        } else {
          const pages: PageResult[] = [];
          // Progress notifications are awaited before the result goes out: the client drops progress
          // for a request it already has the answer to.
          const notified: Promise<void>[] = [];
          const summary = await convertDocument(
            pool,
            {
              uri: path,
              pages: args.pages,
              password: args.password,
              limits: opts.limits,
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
            log(
              'info',
              `conversion of ${label} cancelled after ${summary.pagesDone.length} of ${summary.pageCount} pages`,
            );
            return toolError('cancelled', `cancelled after ${summary.pagesDone.length} pages`);
          }
          if (summary.pagesDone.length === 0 && summary.pageErrors.length > 0) {
            const first = summary.pageErrors[0]!;
            return toolError(first.kind, `${label}: no page could be converted (${first.message})`);
          }
          done = { summary, pages: pages.sort((a, b) => a.page - b.page) };
          cache.misses++;
          // Only a whole conversion of the bytes it was keyed by is kept (the file may have changed meanwhile).
          const complete = summary.pageErrors.length === 0 && !summary.stopped;
          if (complete && cacheKey(await fileSha256(path), { pages: args.pages, password: args.password }) === key)
            cache.set(key, done);
          log(
            'info',
            `${label}: converted ${summary.pagesDone.length} pages (${cache.hits} cached, ${cache.misses} converted)`,
          );
        }
        const { summary, pages } = done;
        const format = args.format ?? 'markdown';
        let text: string;
        if (format === 'doctags') text = summary.doctags;
        else if (format === 'markdown') text = summary.markdown;
        // JSON compact: an agent's context pays for every indentation space.
        else
          text = renderExport({
            format,
            pdfPath: path,
            pages,
            images: 'none',
            imagesBaseDir: roots.roots[0]!,
            keepFurniture: false,
            chunk: { maxSize: args.chunkSize ?? 2000, unit: 'chars' },
            json: 'compact',
          }).text;
        const notes = summary.pageErrors.map((e) => `page ${e.page} failed: ${e.message}`);
        if (text.length > opts.maxChars) {
          notes.push(
            `output cut at ${opts.maxChars} of ${text.length} characters: ask for fewer pages (pages argument)`,
          );
          text = text.slice(0, opts.maxChars);
        }
        const content: { type: 'text'; text: string }[] = [{ type: 'text', text }];
        if (notes.length > 0) content.push({ type: 'text', text: notes.join('\n') });
        return { content };
      } catch (e) {
        return toolError(kindOf(e), `${label}: ${messageOf(e).split('\n')[0]}`);
      }
    },
  );

  server.registerTool(
    'list_pdfs',
    {
      title: 'List PDFs',
      description:
        'Lists the PDFs (and PNG/JPEG/TIFF scans) in the folders this server may read that convert_pdf accepts (at most 500), one absolute path a line.',
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async () => ({ content: [{ type: 'text', text: listConvertible(roots).join('\n') || '(no PDF found)' }] }),
  );

  return {
    server,
    close: async () => {
      await server.close();
      await Promise.all([pool.dispose(1_000), disposeVlmEngines()]);
    },
  };
}

export async function runMcpCommand(argv: string[]): Promise<number> {
  if (wantsHelp(argv)) {
    process.stdout.write(MCP_USAGE + '\n');
    return 0;
  }
  let opts: McpOptions;
  let made: ReturnType<typeof createFolioMcpServer>;
  try {
    opts = parseMcpArgs(argv);
    made = createFolioMcpServer(opts);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`folio mcp: ${e.message}\n${MCP_USAGE}\n`);
      return 2;
    }
    if (e instanceof PathError) {
      process.stderr.write(`folio mcp: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolveClosed) => {
    transport.onclose = () => resolveClosed();
    process.stdin.once('end', () => resolveClosed());
  });
  await made.server.connect(transport);
  process.stderr.write(`folio mcp: serving ${opts.folders.join(', ')} on stdio\n`);
  await closed;
  await made.close();
  return 0;
}
