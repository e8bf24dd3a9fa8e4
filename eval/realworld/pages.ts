/**
 * The set's pages: which PDF each test reads and how its single page is cut out.
 *
 * A test's `pdf` is either `corpus/<path>` — a file of the shared corpus (`FOLIO_CORPUS`, else
 * `../shared/corpus`), committed only by reference — or `debian/<key>`, a document installed by
 * a Debian package, listed in `debian.tsv` (key, package, installed path, SHA-256 of the file as
 * installed — of the `.gz` where Debian compresses it). A missing package or a changed file is an
 * error that names the package to install; nothing is skipped.
 *
 * Each page is cut into its own one-page PDF (poppler's `pdfseparate`, else MuPDF's
 * `mutool merge`) so every converter sees exactly that page, as olmOCR-bench's single-page PDFs.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join, resolve, sep } from 'node:path';

export interface DebianSource {
  key: string;
  pkg: string;
  path: string;
  sha256: string;
}

export const DEBIAN_TSV = 'debian.tsv';

export function readDebianSources(setDir: string): Map<string, DebianSource> {
  const file = join(setDir, DEBIAN_TSV);
  const m = new Map<string, DebianSource>();
  for (const [i, line] of readFileSync(file, 'utf8').split('\n').entries()) {
    if (!line.trim() || line.startsWith('#')) continue;
    const f = line.split('\t');
    if (f.length !== 4 || !/^[0-9a-f]{64}$/.test(f[3])) throw new Error(`${file}:${i + 1}: expected key<TAB>package<TAB>path<TAB>sha256`);
    m.set(f[0], { key: f[0], pkg: f[1], path: f[2], sha256: f[3] });
  }
  return m;
}

export function sha256(buf: Buffer): string {
  return createHash('sha256').update(buf).digest('hex');
}

export class PageSourceError extends Error {}

/** The bytes of a test's PDF, checked (Debian files against their recorded hash). */
export function pdfBytes(ref: string, corpusRoot: string, debian: Map<string, DebianSource>): Buffer {
  if (ref.startsWith('corpus/')) {
    const root = resolve(corpusRoot);
    const p = resolve(root, ref.slice('corpus/'.length));
    if (!p.startsWith(root + sep)) throw new PageSourceError(`${ref}: path leaves the corpus folder`);
    if (!existsSync(p)) throw new PageSourceError(`${ref}: ${p} is missing from the shared corpus (set FOLIO_CORPUS to the corpus folder)`);
    return readFileSync(p);
  }
  const key = ref.slice('debian/'.length);
  const src = debian.get(key);
  if (!src) throw new PageSourceError(`${ref}: no "${key}" in eval/realworld/${DEBIAN_TSV}`);
  if (!existsSync(src.path)) throw new PageSourceError(`${ref}: ${src.path} is missing: install the Debian package "${src.pkg}" (apt-get install -y ${src.pkg})`);
  const raw = readFileSync(src.path);
  const got = sha256(raw);
  if (got !== src.sha256) throw new PageSourceError(`${ref}: ${src.path} has SHA-256 ${got}, the set was checked on ${src.sha256}: package "${src.pkg}" changed version; re-check these pages before updating ${DEBIAN_TSV}`);
  return src.path.endsWith('.gz') ? gunzipSync(raw) : raw;
}

/** A file name for a page, unique per (ref, page), safe in any folder. */
export function pageFileName(ref: string, page: number): string {
  return `${ref.replace(/\.pdf(\.gz)?$/i, '').replace(/[^A-Za-z0-9._-]+/g, '_')}__p${page}.pdf`;
}

/** Cuts page `page` of `src` into `dst` (pdfseparate, else mutool); throws with the tool's message. */
export function cutPage(src: string, page: number, dst: string): void {
  const errors: string[] = [];
  try {
    execFileSync('pdfseparate', ['-f', String(page), '-l', String(page), src, dst], { stdio: ['ignore', 'ignore', 'pipe'] });
    if (existsSync(dst)) return;
  } catch (e) {
    errors.push(`pdfseparate: ${String((e as { stderr?: Buffer }).stderr ?? e).trim().split('\n')[0]}`);
  }
  try {
    execFileSync('mutool', ['merge', '-o', dst, src, String(page)], { stdio: ['ignore', 'ignore', 'pipe'] });
    if (existsSync(dst)) return;
  } catch (e) {
    errors.push(`mutool: ${String((e as { stderr?: Buffer }).stderr ?? e).trim().split('\n')[0]}`);
  }
  throw new PageSourceError(`cannot cut page ${page} of ${src} (${errors.join('; ') || 'no output'}): install poppler-utils or mupdf-tools`);
}

/**
 * Writes every (ref, page) as a one-page PDF into `dir`; returns the path per `ref#page`.
 * Throws on the first page that cannot be produced, naming it.
 */
export function materializePages(pages: { pdf: string; page: number }[], dir: string, corpusRoot: string, setDir: string): Map<string, string> {
  mkdirSync(dir, { recursive: true });
  const debian = readDebianSources(setDir);
  const whole = new Map<string, string>();
  const out = new Map<string, string>();
  for (const { pdf, page } of pages) {
    const k = `${pdf}#${page}`;
    if (out.has(k)) continue;
    let src = whole.get(pdf);
    if (!src) {
      const bytes = pdfBytes(pdf, corpusRoot, debian);
      src = join(dir, `whole-${sha256(bytes).slice(0, 16)}.pdf`);
      if (!existsSync(src)) writeFileSync(src, bytes);
      whole.set(pdf, src);
    }
    const dst = join(dir, pageFileName(pdf, page));
    if (!existsSync(dst)) cutPage(src, page, dst);
    out.set(k, dst);
  }
  return out;
}
