/** `folio mcp`'s command line: the folders it may read, and its flags (server/flags). */
import type { ConvertLimits } from '../../common/protocol';
import { LIMIT_FLAGS, RUN_FLAGS } from '../flags/groups';
import { parseFlags, usageText, wholeNumberFlag } from '../flags/table';

/** Results above this size are cut (with a note) so one call cannot flood the client's context. */
export const MAX_RESULT_CHARS = 400_000;

export const MCP_FLAGS = {
  ...RUN_FLAGS,
  'max-chars': {
    ...wholeNumberFlag('<n>', 1, Infinity, [`longest result returned, in characters (default ${MAX_RESULT_CHARS})`]),
    default: MAX_RESULT_CHARS,
  },
  ...LIMIT_FLAGS,
};

export const MCP_USAGE = usageText(
  'usage: folio mcp <folder>... [options]',
  MCP_FLAGS,
  `
Serves the Model Context Protocol on stdin/stdout. Only files inside the folders named may be
converted. Tools: convert_pdf {path (or file:// URI), pages?, format?: markdown|chunks|doctags|docling,
password?, chunkSize?} for PDFs, scans and .docx/.pptx/.xlsx/.html/.htm/.md/.csv documents, and
list_pdfs. Conversions are cached by content for the server's life.`,
);

export interface McpOptions {
  folders: string[];
  jobs: number;
  maxChars: number;
  /** Resource limits of each conversion (docs/limits.md: page count, time, page memory). */
  limits: ConvertLimits;
}

export function parseMcpArgs(argv: string[]): McpOptions {
  const { values: v, positionals } = parseFlags(MCP_FLAGS, argv);
  const limits: ConvertLimits = {};
  if (v['max-pages'] !== undefined) limits.maxPages = v['max-pages'];
  if (v['max-cells'] !== undefined) limits.maxCells = v['max-cells'];
  if (v['max-document-seconds'] !== undefined) limits.documentSeconds = v['max-document-seconds'];
  if (v['max-page-memory'] !== undefined) limits.pageMemoryMb = v['max-page-memory'];
  return { folders: positionals, jobs: v.jobs, maxChars: v['max-chars'], limits };
}
