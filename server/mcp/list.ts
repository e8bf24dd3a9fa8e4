/**
 * `list_pdfs`: the files in the allowed folders that `convert_pdf` accepts — each one is put
 * through the same check (`AllowedRoots.check`), so a link out of the folders, a link to a folder
 * or a file of another kind is never offered. Folio's own picture crops (`<name>.assets/`
 * beside an output) are outputs, not documents: their folders are not listed. Hidden folders and
 * node_modules are skipped; the walk is bounded in depth and count.
 */
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AllowedRoots, CONVERTIBLE } from './paths';
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
      if (!CONVERTIBLE.test(name)) continue;
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
      title: 'List PDFs',
      description:
        'Lists the PDFs (and PNG/JPEG/TIFF scans) in the folders this server may read that convert_pdf accepts (at most 500), one absolute path a line.',
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async () => ({ content: [{ type: 'text', text: listConvertible(ctx.roots).join('\n') || '(no PDF found)' }] }),
  );
}
