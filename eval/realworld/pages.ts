/**
 * The set's pages: which PDF each test reads and how its single page is cut out.
 *
 * A test's `pdf` is either `corpus/<path>` — a file of the shared corpus (`FOLIO_CORPUS`, else
 * `../shared/corpus`), committed only by reference — or `debian/<key>`, a document installed by
 * a Debian package, listed in `debian.tsv` (key, package, installed path, SHA-256 of the file as
 * installed — of the `.gz` where Debian compresses it). A missing package or a changed file is an
 * error that names the package to install; nothing is skipped. `made/<file>` is a page typeset for
 * the set by a real producer (Chromium, LibreOffice) from a source kept beside it in
 * eval/realworld/made/ with its RECIPE.sh, for page kinds no corpus or Debian document holds.
 *
 * Each page is cut into its own one-page PDF (poppler's `pdfseparate`, else MuPDF's
 * `mutool merge`) so every converter sees exactly that page, as olmOCR-bench's single-page PDFs.
 *
 * `raster<dpi>/<ref>` (e.g. `raster200/debian/revtex-apssamp`) is that page rendered by poppler
 * to a greyscale JPEG at <dpi> and wrapped alone in a PDF: an image-only page with no text layer,
 * for the scanned-page class where the corpus has no real scanned two-column page. Such pages are
 * marked as rasterized, not scanned, in the report's class description.
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
    if (f.length !== 4 || !/^[0-9a-f]{64}$/.test(f[3]))
      throw new Error(`${file}:${i + 1}: expected key<TAB>package<TAB>path<TAB>sha256`);
    m.set(f[0], { key: f[0], pkg: f[1], path: f[2], sha256: f[3] });
  }
  return m;
}

export function sha256(buf: Buffer): string {
  return createHash('sha256').update(buf).digest('hex');
}

export class PageSourceError extends Error {}

/** `raster<dpi>/<ref>` → { dpi, ref }; undefined for a plain ref. */
export function rasterOf(ref: string): { dpi: number; ref: string } | undefined {
  const m = /^raster(\d{2,3})\/(.+)$/.exec(ref);
  return m ? { dpi: Number(m[1]), ref: m[2] } : undefined;
}

/** The bytes of a test's PDF, checked (Debian files against their recorded hash). */
export function pdfBytes(ref: string, corpusRoot: string, debian: Map<string, DebianSource>, setDir?: string): Buffer {
  const raster = rasterOf(ref);
  if (raster) return pdfBytes(raster.ref, corpusRoot, debian, setDir);
  if (ref.startsWith('made/') && setDir !== undefined) {
    const root = resolve(setDir, 'made');
    const p = resolve(root, ref.slice('made/'.length));
    if (!p.startsWith(root + sep)) throw new PageSourceError(`${ref}: path leaves eval/realworld/made`);
    if (!existsSync(p)) throw new PageSourceError(`${ref}: ${p} is missing (eval/realworld/made/RECIPE.sh makes it)`);
    return readFileSync(p);
  }
  if (ref.startsWith('corpus/')) {
    const root = resolve(corpusRoot);
    const p = resolve(root, ref.slice('corpus/'.length));
    if (!p.startsWith(root + sep)) throw new PageSourceError(`${ref}: path leaves the corpus folder`);
    if (!existsSync(p))
      throw new PageSourceError(
        `${ref}: ${p} is missing from the shared corpus (set FOLIO_CORPUS to the corpus folder)`,
      );
    return readFileSync(p);
  }
  const key = ref.slice('debian/'.length);
  const src = debian.get(key);
  if (!src) throw new PageSourceError(`${ref}: no "${key}" in eval/realworld/${DEBIAN_TSV}`);
  if (!existsSync(src.path))
    throw new PageSourceError(
      `${ref}: ${src.path} is missing: install the Debian package "${src.pkg}" (apt-get install -y ${src.pkg})`,
    );
  const raw = readFileSync(src.path);
  const got = sha256(raw);
  if (got !== src.sha256)
    throw new PageSourceError(
      `${ref}: ${src.path} has SHA-256 ${got}, the set was checked on ${src.sha256}: package "${src.pkg}" changed version; re-check these pages before updating ${DEBIAN_TSV}`,
    );
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
    execFileSync('pdfseparate', ['-f', String(page), '-l', String(page), src, dst], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    if (existsSync(dst)) return;
  } catch (e) {
    errors.push(
      `pdfseparate: ${
        String((e as { stderr?: Buffer }).stderr ?? e)
          .trim()
          .split('\n')[0]
      }`,
    );
  }
  try {
    execFileSync('mutool', ['merge', '-o', dst, src, String(page)], { stdio: ['ignore', 'ignore', 'pipe'] });
    if (existsSync(dst)) return;
  } catch (e) {
    errors.push(
      `mutool: ${
        String((e as { stderr?: Buffer }).stderr ?? e)
          .trim()
          .split('\n')[0]
      }`,
    );
  }
  throw new PageSourceError(
    `cannot cut page ${page} of ${src} (${errors.join('; ') || 'no output'}): install poppler-utils or mupdf-tools`,
  );
}

/** Width, height and component count of a baseline or progressive JPEG, from its SOF marker. */
function jpegSize(jpg: Buffer): { w: number; h: number; comps: number } {
  let i = 2;
  while (i + 9 < jpg.length) {
    if (jpg[i] !== 0xff) throw new PageSourceError('not a JPEG stream');
    const marker = jpg[i + 1];
    const len = jpg.readUInt16BE(i + 2);
    if (marker >= 0xc0 && marker <= 0xc3)
      return { h: jpg.readUInt16BE(i + 5), w: jpg.readUInt16BE(i + 7), comps: jpg[i + 9] };
    i += 2 + len;
  }
  throw new PageSourceError('JPEG without a frame header');
}

/** A one-page PDF showing only `jpg` (DCT) at `dpi`: what a scanner's PDF holds. */
export function imagePdf(jpg: Buffer, dpi: number): Buffer {
  const { w, h, comps } = jpegSize(jpg);
  // poppler writes 3-component JPEGs even with -gray; the colour space must say what the stream holds.
  const cs = comps === 1 ? '/DeviceGray' : comps === 4 ? '/DeviceCMYK' : '/DeviceRGB';
  const pw = ((w * 72) / dpi).toFixed(2);
  const ph = ((h * 72) / dpi).toFixed(2);
  const content = Buffer.from(`q ${pw} 0 0 ${ph} 0 0 cm /Im0 Do Q\n`);
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  const offsets: number[] = [];
  const size = () => parts.reduce((n, b) => n + b.length, 0);
  const obj = (n: number, body: Buffer[]) => {
    offsets[n] = size();
    parts.push(Buffer.from(`${n} 0 obj\n`), ...body, Buffer.from('\nendobj\n'));
  };
  obj(1, [Buffer.from('<< /Type /Catalog /Pages 2 0 R >>')]);
  obj(2, [Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>')]);
  obj(3, [
    Buffer.from(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${pw} ${ph}] /Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>`,
    ),
  ]);
  obj(4, [
    Buffer.from(
      `<< /Type /XObject /Subtype /Image /Width ${w} /Height ${h} /ColorSpace ${cs} /BitsPerComponent 8 /Filter /DCTDecode /Length ${jpg.length} >>\nstream\n`,
    ),
    jpg,
    Buffer.from('\nendstream'),
  ]);
  obj(5, [Buffer.from(`<< /Length ${content.length} >>\nstream\n`), content, Buffer.from('endstream')]);
  const xref = size();
  const table = [
    'xref',
    '0 6',
    '0000000000 65535 f ',
    ...[1, 2, 3, 4, 5].map((n) => `${String(offsets[n]).padStart(10, '0')} 00000 n `),
  ].join('\n');
  parts.push(Buffer.from(`${table}\ntrailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`));
  return Buffer.concat(parts);
}

/** Renders the one-page PDF `src` to a greyscale JPEG at `dpi` and writes it as an image-only PDF. */
export function rasterizePage(src: string, dpi: number, dst: string): void {
  let jpg: Buffer;
  try {
    jpg = execFileSync(
      'pdftoppm',
      ['-r', String(dpi), '-gray', '-jpeg', '-jpegopt', 'quality=85', '-singlefile', src],
      { maxBuffer: 256 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] },
    );
  } catch (e) {
    throw new PageSourceError(
      `cannot render ${src} at ${dpi} dpi (${
        String((e as { stderr?: Buffer }).stderr ?? e)
          .trim()
          .split('\n')[0]
      }): install poppler-utils`,
    );
  }
  writeFileSync(dst, imagePdf(jpg, dpi));
}

/**
 * Writes every (ref, page) as a one-page PDF into `dir`; returns the path per `ref#page`.
 * Throws on the first page that cannot be produced, naming it.
 */
export function materializePages(
  pages: { pdf: string; page: number }[],
  dir: string,
  corpusRoot: string,
  setDir: string,
): Map<string, string> {
  mkdirSync(dir, { recursive: true });
  const debian = readDebianSources(setDir);
  const whole = new Map<string, string>();
  const out = new Map<string, string>();
  for (const { pdf, page } of pages) {
    const k = `${pdf}#${page}`;
    if (out.has(k)) continue;
    let src = whole.get(pdf);
    if (!src) {
      const bytes = pdfBytes(pdf, corpusRoot, debian, setDir);
      src = join(dir, `whole-${sha256(bytes).slice(0, 16)}.pdf`);
      if (!existsSync(src)) writeFileSync(src, bytes);
      whole.set(pdf, src);
    }
    const dst = join(dir, pageFileName(pdf, page));
    const raster = rasterOf(pdf);
    if (!existsSync(dst)) {
      if (raster) {
        const cut = join(dir, `cut-${pageFileName(raster.ref, page)}`);
        if (!existsSync(cut)) cutPage(src, page, cut);
        rasterizePage(cut, raster.dpi, dst);
      } else cutPage(src, page, dst);
    }
    out.set(k, dst);
  }
  return out;
}
