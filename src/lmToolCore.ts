/** The language-model tool's checks without VS Code (unit-tested): the path it may read and the size of what it returns. */
import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';

/** About 12k tokens: enough for a paper's worth of pages, small enough for any model's context. */
export const LM_TOOL_MAX_CHARS = 50_000;

/**
 * What the tool converts: PDFs, scans, and the documents born structured the explorer's
 * "Convert" entry takes (issue 41; package.json's explorer/context `when`).
 */
export const LM_TOOL_INPUT = /\.(pdf|png|jpe?g|tiff?|docx|pptx|xlsx|html?|csv)$/i;

/** The document named by the tool input, inside a workspace folder (links resolved); else an Error saying why. */
export function resolveWorkspacePdf(input: string, folders: readonly string[]): string {
  if (typeof input !== 'string' || !input.trim()) throw new Error('path is empty: give the workspace path of a PDF');
  if (folders.length === 0) throw new Error('no folder is open: Folio converts PDFs inside the workspace');
  const abs = isAbsolute(input) ? input : join(folders[0]!, input);
  let real: string;
  try {
    real = realpathSync(abs);
  } catch {
    throw new Error(`${input} was not found in the workspace`);
  }
  const inside = folders.some((f) => {
    const rel = relative(realpathSync(f), real);
    return !rel.startsWith('..' + sep) && rel !== '..' && !isAbsolute(rel);
  });
  if (!inside) throw new Error(`${input} is outside the workspace folders`);
  if (!statSync(real).isFile() || !LM_TOOL_INPUT.test(real))
    throw new Error(
      `${input} is not a PDF file or a document Folio converts (a scan, .docx, .pptx, .xlsx, .html, .htm, .csv)`,
    );
  return real;
}

export function boundResult(markdown: string, max = LM_TOOL_MAX_CHARS): string {
  if (markdown.length <= max) return markdown;
  // Cut at a paragraph break so the model never sees half a table row.
  const cut = markdown.lastIndexOf('\n\n', max);
  const kept = markdown.slice(0, cut > max / 2 ? cut : max);
  return `${kept}\n\n[Folio: output cut at ${kept.length} of ${markdown.length} characters; call the tool again with "pages" for the rest.]`;
}
