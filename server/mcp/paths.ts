/**
 * Which files an MCP client may have converted: only files inside the folders the user named on
 * the command line (`folio mcp <folder>...`), after resolving symbolic links, so `..` and links
 * cannot reach outside them. A path may be given as a `file://` URI (what MCP clients put in
 * roots and resource links).
 */
import { realpathSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { structuredFormatOf } from '../convert/structuredInput';

/** PDFs and scans: read through pages (pdf.js, OCR). */
const PAGED = /\.(pdf|png|jpe?g|tiff?)$/i;

/**
 * What `convert_pdf` accepts: PDFs, scans, and the documents born structured that `folio convert`
 * reads (server/office: DOCX, PPTX, XLSX, HTML, Markdown, CSV, by the same extension table).
 */
export function isConvertible(path: string): boolean {
  return PAGED.test(path) || structuredFormatOf(path) !== undefined;
}

/**
 * What `list_pdfs` offers: the same, without Markdown. A folder holds Folio's own `.md` outputs
 * (beside every converted document); offering them as documents would have an agent convert
 * outputs. The rule `folio convert <folder>` follows (server/cli/main.ts). A `.md` named
 * explicitly is still accepted.
 */
export function isListed(path: string): boolean {
  return isConvertible(path) && structuredFormatOf(path) !== 'md';
}

/** The accepted kinds in words, for the refusal and the tools' descriptions. */
export const CONVERTIBLE_KINDS =
  'a PDF, a scan (PNG, JPEG, TIFF), or a Word, PowerPoint, Excel, HTML, Markdown or CSV document (.docx, .pptx, .xlsx, .html, .htm, .md, .csv)';

export class PathError extends Error {}

/** The real path of the deepest part of `abs` that exists (links resolved), with the missing rest appended. */
function realAncestor(abs: string): string {
  let at = abs;
  const rest: string[] = [];
  for (;;) {
    try {
      return join(realpathSync(at), ...rest);
    } catch {
      const up = dirname(at);
      if (up === at) return abs;
      rest.unshift(basename(at));
      at = up;
    }
  }
}

export class AllowedRoots {
  readonly roots: string[];
  /** The folders as named (before resolving links): a path outside all of them is refused before the file system is asked. */
  private readonly named: string[];

  constructor(folders: readonly string[]) {
    if (folders.length === 0)
      throw new PathError('name at least one folder the MCP server may read documents from: folio mcp <folder>...');
    this.named = folders.map((f) => resolve(f));
    this.roots = folders.map((f) => {
      const abs = resolve(f);
      const st = statSync(abs, { throwIfNoEntry: false });
      if (!st?.isDirectory())
        throw new PathError(`${abs} is not a folder: folio mcp takes the folders it may read from`);
      return realpathSync(abs);
    });
  }

  /** The real path of `input` (absolute, or relative to the first folder) when it is a convertible file inside a folder; else a PathError saying why. */
  check(input: string): string {
    if (typeof input !== 'string' || input.trim() === '')
      throw new PathError('path is empty: give the path of a PDF or an Office/HTML document');
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(input) && !/^file:/i.test(input))
      throw new PathError(`${input.slice(0, 200)}: only local files (a path or a file:// URI) can be converted`);
    if (/^file:/i.test(input)) {
      try {
        input = fileURLToPath(input);
      } catch (e) {
        throw new PathError(`${input.slice(0, 200)} is not a local file URI (${(e as Error).message})`);
      }
    }
    const abs = isAbsolute(input) ? resolve(input) : resolve(this.roots[0]!, input);
    const within = (roots: string[], p: string) =>
      roots.some((root) => {
        const rel = relative(root, p);
        return rel === '' || (!rel.startsWith('..' + sep) && rel !== '..' && !isAbsolute(rel));
      });
    // One answer for every path outside the folders, existing or not: the client is untrusted and
    // must not learn what exists elsewhere on the machine (security round 3, F7). The lexical
    // check comes first, so such a path never reaches the file system.
    const outside = () =>
      new PathError(`${abs} is outside the folders this server may read (${this.roots.join(', ')})`);
    if (!within([...this.roots, ...this.named], abs)) throw outside();
    let real: string;
    try {
      real = realpathSync(abs);
    } catch {
      // Missing: "not found" only when what does exist of the path lies inside the folders. Through
      // a link inside a folder (`up -> /`), `up/etc/nonexistent` must answer as `up/etc/passwd`
      // does, or the answers tell what exists outside (security round 4, N6).
      if (!within(this.roots, realAncestor(abs))) throw outside();
      throw new PathError(`${abs} was not found`);
    }
    if (!within(this.roots, real)) throw outside();
    if (!statSync(real).isFile()) throw new PathError(`${abs} is not a file`);
    // The link's target decides, as the conversion reads the target (its extension picks the reader).
    if (!isConvertible(real))
      throw new PathError(`${abs} is not a PDF or a document Folio converts: give ${CONVERTIBLE_KINDS}`);
    return real;
  }
}
