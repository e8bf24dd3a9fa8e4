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
import { PageWorkerPool } from '../worker/pool';
import { disposeVlmEngines } from '../convert/vlmEngine';
import { AllowedRoots, PathError } from './paths';
import { registerListPdfs } from './list';
import { ConversionCache } from './cache';
import { registerConvertPdf } from './convertPdf';
import type { ToolContext } from './toolContext';
import { UsageError } from '../errors';
import { EXIT_CODES } from '../exitCodes';
import { wantsHelp } from '../flags/table';
import { MCP_USAGE, parseMcpArgs, type McpOptions } from './args';

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
      return EXIT_CODES.input;
    }
    if (e instanceof PathError) {
      process.stderr.write(`folio mcp: ${e.message}\n`);
      return EXIT_CODES.input; // a folder argument that is not one
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
