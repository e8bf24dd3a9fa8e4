/**
 * Builds the multi-column development set into a cache (default `~/.cache/folio-multicol`, or
 * `FOLIO_MULTICOL_CACHE`): each document typeset by XeLaTeX, Chromium and LibreOffice, plus
 * scanned variants, each PDF beside its Markdown ground truth. Files already built for this
 * generator version are reused. A producer that is missing or fails is a loud error.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { documents, type Doc } from './doc';
import { toFodt } from './fodt';
import { toHtml } from './html';
import { toLatex } from './latex';
import { toMarkdown } from './markdown';
import { SCAN_DPIS, SCAN_PROFILES, scanVariant, type ScanDpi, type ScanProfileName } from './scan';

/**
 * Bump when the generator's output changes, so stale caches are rebuilt. v2: scans are
 * one-component JPEGs declared as such (v1's, made with sharp 0.35, were three-component JPEGs
 * declared gray: pdf.js read them, poppler did not; scan.ts jpegComponents).
 */
const VERSION = 'v2';

export const PRODUCERS = ['xelatex', 'chromium', 'libreoffice'] as const;
export type Producer = (typeof PRODUCERS)[number];

export interface SetEntry {
  pdf: string;
  gt: string;
  /** `multicol/<producer>` or `multicol-scan/<producer>`. */
  set: string;
  rel: string;
}

export function cacheDir(): string {
  return join(process.env.FOLIO_MULTICOL_CACHE ?? join(homedir(), '.cache', 'folio-multicol'), VERSION);
}

async function figurePng(): Promise<Buffer> {
  const bars = [40, 75, 55, 90, 65, 30, 80]
    .map(
      (h, i) =>
        `<rect x="${40 + i * 75}" y="${260 - h * 2.4}" width="50" height="${h * 2.4}" fill="#${['346', '6a4', 'c63', '48b', 'a4a', '3aa', '886'][i]}"/>`,
    )
    .join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="600" height="300"><rect width="600" height="300" fill="#fff"/><line x1="30" y1="262" x2="580" y2="262" stroke="#000" stroke-width="2"/><line x1="30" y1="20" x2="30" y2="262" stroke="#000" stroke-width="2"/>${bars}</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

function run(cmd: string, args: string[], cwd: string, what: string): void {
  try {
    execFileSync(cmd, args, { cwd, stdio: 'pipe', timeout: 180_000 });
  } catch (e) {
    const err = e as { stderr?: Buffer; stdout?: Buffer; message: string };
    const tail = (err.stdout?.toString() ?? '').split('\n').slice(-15).join('\n') + (err.stderr?.toString() ?? '');
    throw new Error(
      `multicol set: ${what} failed (${cmd}): ${err.message.split('\n')[0]}\n${tail}\nInstall texlive-xetex, chromium and libreoffice-writer (scripts/test-deps.sh).`,
    );
  }
}

/**
 * Issue 40's narrow gutters: 0.15 in between columns (~30 px at 200 dpi, as on the outside scans
 * whose columns merged in OCR), against the 8 mm of the first sets.
 */
export const NARROW_GUTTER_MM = 3.81;

/** `gutterMm` other than the default 8 mm typesets a variant, `<doc>.<producer>.g<mm>.pdf`. */
async function typeset(d: Doc, producer: Producer, dir: string, png: Buffer, gutterMm = 8): Promise<string> {
  const variant = gutterMm === 8 ? '' : `.g${gutterMm}`;
  const out = join(dir, `${d.name}.${producer}${variant}.pdf`);
  if (existsSync(out)) return out;
  const work = join(dir, `work-${d.name}-${producer}${variant}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'fig.png'), png);
  if (producer === 'xelatex') {
    writeFileSync(join(work, 'doc.tex'), toLatex(d, 'fig.png', gutterMm));
    run('xelatex', ['-interaction=nonstopmode', '-halt-on-error', 'doc.tex'], work, `XeLaTeX on ${d.name}`);
    renameSync(join(work, 'doc.pdf'), out);
  } else if (producer === 'chromium') {
    writeFileSync(join(work, 'doc.html'), toHtml(d, 'fig.png', gutterMm));
    const profile = join(work, 'profile');
    run(
      'chromium',
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        `--user-data-dir=${profile}`,
        '--no-pdf-header-footer',
        `--print-to-pdf=${join(work, 'doc.pdf')}`,
        `file://${join(work, 'doc.html')}`,
      ],
      work,
      `Chromium on ${d.name}`,
    );
    renameSync(join(work, 'doc.pdf'), out);
  } else {
    writeFileSync(join(work, 'doc.fodt'), toFodt(d, png.toString('base64'), gutterMm));
    // Its own profile: a user's running LibreOffice (or another build) must not catch the call.
    run(
      'soffice',
      [
        `-env:UserInstallation=file://${join(work, 'lo-profile')}`,
        '--headless',
        '--convert-to',
        'pdf',
        '--outdir',
        work,
        join(work, 'doc.fodt'),
      ],
      work,
      `LibreOffice on ${d.name}`,
    );
    renameSync(join(work, 'doc.pdf'), out);
  }
  rmSync(work, { recursive: true, force: true });
  return out;
}

/** The scanned set at `dpi`: `multicol-scan` (200 dpi, the first one made), `multicol-scan-150`, `multicol-scan-300`. */
export const scanSetName = (dpi: ScanDpi): string => (dpi === 200 ? 'multicol-scan' : `multicol-scan-${dpi}`);

/** One scanned set: its name, resolution, degradation profile and the file suffix of its PDFs. */
export interface ScanSet {
  name: string;
  dpi: ScanDpi;
  profile: ScanProfileName;
  suffix: string;
  /** Scans of the narrow-gutter pages (`multicol-narrow`), compared with those. */
  narrow?: boolean;
}

/** Issue 40: the pages set with narrow gutters, born digital, and their scanned twins. */
export const NARROW_SET = 'multicol-narrow';
export const NARROW_SCAN_SET = 'multicol-scan-narrow';
/** Added to the narrow twins' seeds: skew, blur and noise drawn apart from the other sets'. */
const NARROW_SEED_OFFSET = 4000;

/** The harder twins of issue 31 (class 6): 200 dpi, skew 0.25–0.9°, blur, noise, JPEG q75. */
export const HARD_SCAN_SET = 'multicol-scan-hard';

/** Every scanned set: the plain ones at each resolution, then the hard twins. */
export const SCAN_SETS: readonly ScanSet[] = [
  ...SCAN_DPIS.map((dpi) => ({
    name: scanSetName(dpi),
    dpi,
    profile: 'plain' as const,
    suffix: dpi === 200 ? 'scan' : `scan${dpi}`,
  })),
  { name: HARD_SCAN_SET, dpi: 200, profile: 'hard', suffix: 'scanhard' },
  { name: NARROW_SCAN_SET, dpi: 200, profile: 'narrow', suffix: 'scannarrow', narrow: true },
];

/**
 * Builds what is missing and lists the set. `scans`: add these scanned sets (names from SCAN_SETS);
 * `narrow`: add the narrow-gutter pages (`multicol-narrow`), typeset when these or their scans are asked for.
 */
export async function buildMulticolSet(
  opts: { quick?: boolean; scans?: readonly string[]; narrow?: boolean; producers?: readonly Producer[] } = {},
): Promise<SetEntry[]> {
  const dir = cacheDir();
  mkdirSync(dir, { recursive: true });
  const png = await figurePng();
  const out: SetEntry[] = [];
  let seed = 1;
  for (const d of documents(opts.quick)) {
    const gt = join(dir, `${d.name}.md`);
    const md = toMarkdown(d);
    if (!existsSync(gt) || readFileSync(gt, 'utf8') !== md) writeFileSync(gt, md);
    for (const p of opts.producers ?? PRODUCERS) {
      const pdf = await typeset(d, p, dir, png);
      out.push({ pdf, gt, set: `multicol/${p}`, rel: `multicol/${p}/${d.name}.pdf` });
      const narrowScans = SCAN_SETS.filter((x) => x.narrow && opts.scans?.includes(x.name));
      const narrow = opts.narrow || narrowScans.length > 0 ? await typeset(d, p, dir, png, NARROW_GUTTER_MM) : '';
      if (opts.narrow)
        out.push({ pdf: narrow, gt, set: `${NARROW_SET}/${p}`, rel: `${NARROW_SET}/${p}/${d.name}.pdf` });
      for (const s of SCAN_SETS.filter((x) => opts.scans?.includes(x.name))) {
        // The same seed for every scanned set of the default pages: the same skew sign and noise
        // draws, only the resolution or the profile's ranges differ. The narrow twins draw their own.
        const scan = join(dir, `${d.name}.${p}.${s.suffix}.pdf`);
        const from = s.narrow ? narrow : pdf;
        const sd = s.narrow ? seed + NARROW_SEED_OFFSET : seed;
        if (!existsSync(scan)) await scanVariant(from, scan, sd, s.dpi, SCAN_PROFILES[s.profile]);
        out.push({ pdf: scan, gt, set: `${s.name}/${p}`, rel: `${s.name}/${p}/${d.name}.pdf` });
      }
      seed++;
    }
  }
  return out;
}
