/**
 * The shared corpus as the harness sees it, read from its MANIFEST.tsv: which PDFs have
 * Markdown ground truth (for `npm run eval` and the quality test) and which belong to the
 * robustness sets (for the sweep).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface CorpusEntry {
  /** Path relative to the corpus root, e.g. `docling-src-rendered/docx/Strict.docx.pdf`. */
  rel: string;
  pdf: string;
  /** Page count from the manifest; undefined when broken or encrypted (`?`). */
  pages?: number;
  bytes: number;
  /** Absolute path of the Markdown ground truth, when the entry has one. */
  gt?: string;
  /** The set: the first one or two path components (`docling/pdf`, `selfmade-example`). */
  set: string;
}

/** Sets with Markdown ground truth scored by `npm run eval` (issue 4). */
export const QUALITY_SETS = ['docling-src-rendered', 'docling/pdf', 'docling/odf', 'selfmade-example'] as const;
/** Sets for the robustness sweep (issue 4). */
export const SWEEP_SETS = [
  'pdfjs-test-pdfs',
  'pdfminer-samples',
  'py-pdf-sample-files',
  'opendataloader-samples',
] as const;

/** `FOLIO_CORPUS`, else `../shared/corpus` beside the repository; a clear error when missing. */
export function corpusRoot(repo: string): string {
  const root = process.env.FOLIO_CORPUS ?? resolve(repo, '..', 'shared', 'corpus');
  if (!existsSync(join(root, 'MANIFEST.tsv'))) {
    throw new Error(
      `Folio's shared corpus was not found at ${root} (no MANIFEST.tsv). Set FOLIO_CORPUS to the corpus folder.`,
    );
  }
  return root;
}

function setOf(rel: string): string {
  const parts = rel.split('/');
  return parts[0] === 'docling' ? `${parts[0]}/${parts[1]}` : parts[0];
}

export function readManifest(root: string): CorpusEntry[] {
  const lines = readFileSync(join(root, 'MANIFEST.tsv'), 'utf8').split('\n');
  const head = lines[0].split('\t');
  const col = (name: string) => {
    const i = head.indexOf(name);
    if (i < 0) throw new Error(`${join(root, 'MANIFEST.tsv')}: no "${name}" column`);
    return i;
  };
  const [cFile, cPages, cBytes, cGt] = [col('file'), col('pages'), col('bytes'), col('gt_file')];
  const out: CorpusEntry[] = [];
  for (const line of lines.slice(1)) {
    if (!line.trim()) continue;
    const f = line.split('\t');
    const rel = f[cFile];
    if (!/\.pdf$/i.test(rel)) continue;
    const gt = f[cGt] && f[cGt] !== '-' && f[cGt].endsWith('.md') ? join(root, f[cGt]) : undefined;
    const pages = Number(f[cPages]);
    out.push({
      rel,
      pdf: join(root, rel),
      pages: Number.isFinite(pages) ? pages : undefined,
      bytes: Number(f[cBytes]),
      gt,
      set: setOf(rel),
    });
  }
  return out;
}

export function inSets(entries: CorpusEntry[], sets: readonly string[]): CorpusEntry[] {
  return entries.filter((e) => sets.some((s) => e.rel.startsWith(s + '/')));
}
