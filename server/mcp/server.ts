/**
 * `folio mcp <folder>...`: Folio as a Model Context Protocol server over stdio (the official
 * TypeScript SDK). Tools, one module each:
 * - `convert_pdf` {path, pages?, format?, password?, chunkSize?} (convertPdf.ts): a PDF inside
 *   the allowed folders as Markdown, chunks, DocTags or a DoclingDocument, with progress,
 *   cancellation and a cache by content;
 * - `list_pdfs` (list.ts): the files in the allowed folders that `convert_pdf` accepts.
 * stdout carries the protocol only; diagnostics go to stderr and to MCP logging.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { ConvertLimits } from '../../common/protocol';
import { PageWorkerPool } from '../worker/pool';
import { checkLimit } from '../worker/limits';
import { disposeVlmEngines } from '../convert/vlmEngine';
import { AllowedRoots, PathError } from './paths';
import { registerListPdfs } from './list';
import { ConversionCache } from './cache';
import { registerConvertPdf } from './convertPdf';
import type { ToolContext } from './toolContext';

/** Results above this size are cut (with a note) so one call cannot flood the client's context. */
export const MAX_RESULT_CHARS = 400_000;

export const MCP_USAGE = `usage: folio mcp <folder>... [--jobs N] [--max-chars N]
                  [--max-pages N] [--max-document-seconds S] [--max-page-memory MB]

Serves the Model Context Protocol on stdin/stdout. Only files inside the folders named may be
converted. Tools: convert_pdf {path (or file:// URI), pages?, format?: markdown|chunks|doctags|docling,
password?, chunkSize?}, list_pdfs. Conversions are cached by content for the server's life.`;

export interface McpOptions {
  folders: string[];
  jobs: number;
  maxChars: number;
  /** Resource limits of each conversion (docs/limits.md: page count, time, page memory). */
  limits: ConvertLimits;
}

const LIMIT_FLAGS = {
  '--max-pages': 'maxPages',
  '--max-document-seconds': 'documentSeconds',
  '--max-page-memory': 'pageMemoryMb',
} as const;

export function parseMcpArgs(argv: string[]): McpOptions {
  const o: McpOptions = { folders: [], jobs: 2, maxChars: MAX_RESULT_CHARS, limits: {} };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a in LIMIT_FLAGS) {
      const key = LIMIT_FLAGS[a as keyof typeof LIMIT_FLAGS];
      try {
        o.limits[key] = checkLimit(key, Number(argv[++i] ?? NaN), a);
      } catch (e) {
        throw new PathError((e as Error).message);
      }
    } else if (a === '--jobs' || a === '--max-chars') {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < 1) throw new PathError(`${a} takes a whole number`);
      if (a === '--jobs') o.jobs = Math.min(n, 64);
      else o.maxChars = n;
    } else if (a.startsWith('-')) throw new PathError(`unknown option ${a}\n${MCP_USAGE}`);
    else o.folders.push(a);
  }
  return o;
}

/** The server and its tools: each tool is one module (`register<Tool>`) over the shared ToolContext. */
export function createFolioMcpServer(opts: McpOptions): { server: McpServer; close: () => Promise<void> } {
  // The folders first: a refused one (PathError) throws before any page worker starts.
  const roots = new AllowedRoots(opts.folders);
  const pool = new PageWorkerPool({ size: opts.jobs });
  const server = new McpServer({ name: 'folio', version: '0.1.0' }, { capabilities: { logging: {} } });
  const ctx: ToolContext = {
    roots,
    pool,
    cache: new ConversionCache(),
    maxChars: opts.maxChars,
    limits: opts.limits,
    log: (level, data) => {
      process.stderr.write(`folio mcp: ${data}\n`);
      void server.server.sendLoggingMessage({ level, logger: 'folio', data }).catch(() => undefined);
    },
  };
  registerConvertPdf(server, ctx);
  registerListPdfs(server, ctx);
  return {
    server,
    close: async () => {
      await server.close();
      await Promise.all([pool.dispose(1_000), disposeVlmEngines()]);
    },
  };
}

export async function runMcpCommand(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(MCP_USAGE + '\n');
    return 0;
  }
  let opts: McpOptions;
  let made: ReturnType<typeof createFolioMcpServer>;
  try {
    opts = parseMcpArgs(argv);
    made = createFolioMcpServer(opts);
  } catch (e) {
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
