/**
 * A failed `convert_pdf` call as MCP returns it: a tool result with `isError` (the spec's place
 * for a failure the model should see and act on, not a JSON-RPC error), its kind in `_meta`, and
 * what an agent can do next — MCP's one table of kinds (docs/errors.md).
 */
import type { ErrorKind } from '../../common/protocol';

export const MCP_ADVICE: Record<ErrorKind, string> = {
  input: 'Fix the arguments (path inside the allowed folders, pages such as "1-3,7") and call again.',
  'not-found': 'Call list_pdfs for the files this server may read.',
  damaged:
    'The file cannot be read (a damaged PDF or Office file, or not what its name says): ask the user for another copy; calling again will not help.',
  encrypted: 'Ask the user for the PDF password and call again with the password argument.',
  password: 'The password is wrong: ask the user for the right one and call again with it.',
  empty: 'The document has no pages: there is nothing to convert.',
  limit:
    'The document is over a limit of this server: ask for fewer pages (slides, sheets) with the pages argument, or tell the user (folio mcp --max-pages, --max-cells).',
  timeout: 'The conversion ran out of time: ask for fewer pages with the pages argument.',
  memory: 'A page needed more memory than allowed: convert the other pages with the pages argument.',
  model: 'A model this server needs is missing or failed: tell the user (folio models pull).',
  cancelled: 'The call was cancelled; call again to convert.',
  internal: 'Folio failed unexpectedly: call again once; if it fails again, tell the user.',
};

/** The meta key that carries the kind, for clients that act on it. */
export const ERROR_KIND_META = 'folio/errorKind';

export interface ToolError {
  [key: string]: unknown;
  isError: true;
  content: { type: 'text'; text: string }[];
  _meta: { [ERROR_KIND_META]: ErrorKind };
}

export function toolError(kind: ErrorKind, text: string): ToolError {
  return {
    isError: true,
    content: [
      { type: 'text', text },
      { type: 'text', text: MCP_ADVICE[kind] },
    ],
    _meta: { [ERROR_KIND_META]: kind },
  };
}
