/**
 * `list_pdfs`: the files in the allowed folders that `convert_pdf` accepts (PDFs, scans, and
 * Word/PowerPoint/Excel/HTML/CSV documents) — each one is put through the same check
 * (`AllowedRoots.check`), so a link out of the folders, a link to a folder or a file of another
 * kind is never offered. Folio's own outputs are not documents: its picture crops' folders
 * (`<name>.assets/`) are not walked and Markdown files are not listed (`isListed`; a `.md` named
 * to `convert_pdf` is still converted). Hidden folders and node_modules are skipped; the walk is
 * bounded in depth and count.
 */
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AllowedRoots, isListed } from './paths';
import type { ToolContext } from './toolContext';

/** Folders Folio writes picture crops into (`folio convert`, the extension, `folio mcp` never). */
export const ASSETS_FOLDER = /\.assets$/i;

export function listConvertible(roots: AllowedRoots, limit = 500, maxDepth = 8): string[] {
  const out: string[] = [];
  const walk = (dir: string, depth: number) => {
    if (out.length >= limit || depth > maxDepth) return;
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (out.length >= limit) return;
      if (name.startsWith('.') || name === 'node_modules') continue;
      const p = join(dir, name);
      const st = lstatSync(p, { throwIfNoEntry: false });
      if (!st) continue;
      // Folders are walked only when they are real folders: a link to a folder could loop or lead out.
      if (st.isDirectory()) {
        if (!ASSETS_FOLDER.test(name)) walk(p, depth + 1);
        continue;
      }
      if (!isListed(name)) continue;
      try {
        roots.check(p);
        out.push(p);
      } catch {
        // refused by convert_pdf (a link out of the folders, a link to a folder…): not offered
      }
    }
  };
  for (const r of roots.roots) walk(r, 0);
  return out;
}

/** The `list_pdfs` tool: `listConvertible`, one absolute path a line. */
export function registerListPdfs(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'list_pdfs',
    {
      title: 'List documents',
      description:
        'Lists the documents in the folders this server may read that convert_pdf accepts (at most 500), one absolute path a line: ' +
        'PDFs, scans (PNG, JPEG, TIFF), Word, PowerPoint and Excel files (.docx, .pptx, .xlsx), HTML pages and CSV tables. ' +
        "Markdown files are not listed (a folder holds Folio's own outputs) but convert_pdf takes one named by path.",
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async () => ({
      content: [
        { type: 'text', text: listConvertible(ctx.roots).join('\n') || '(no PDF or Office/HTML document found)' },
      ],
    }),
  );
}
