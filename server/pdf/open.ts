/**
 * Opening a PDF with pdf.js and turning every way that can fail into a FolioError that names the
 * file and says what to do. Lives in the page worker; the handle is not structured-cloneable.
 */
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { createHash } from 'node:crypto';
import { FolioError, isFolioError } from '../errors';
import { FolioErrorCodes } from '../../common/protocol';
import { pdfjs, pdfjsAssetOptions } from './pdfjs';
import { pdfjsWork } from './guard';
import { keepSampledText } from './text';
import { findOversizedImages, MAX_IMAGE_PIXELS, type OversizedImage } from './oversizedImages';
import type { DocStats } from '../model/stats';
import type { PDFDocumentLoadingTask, PDFDocumentProxy } from 'pdfjs-dist/types/src/display/api';

export interface PdfHandle {
  path: string;
  numPages: number;
  /** Hash of path + size + mtime: names cached page images so re-runs reuse them. */
  fileKey: string;
  doc: PDFDocumentProxy;
  /** Font-size statistics of the first pages (body size, heading sizes), for heading levels. */
  stats: DocStats;
  /** Images over pdf.js's decoding limit (oversizedImages.ts): pages that place one warn by name. */
  oversizedImages?: OversizedImage[];
  close(): Promise<void>;
}

export const DEFAULT_STATS: DocStats = { bodySize: 10, headingSizes: [] };

export async function openPdf(path: string, opts: { password?: string } = {}): Promise<PdfHandle> {
  const name = basename(path);
  let data: Uint8Array;
  let key: string;
  try {
    const st = await stat(path);
    if (!st.isFile())
      throw new FolioError(FolioErrorCodes.FileNotFound, `${name} is not a file (${path}): pass a PDF file`);
    if (st.size === 0)
      throw new FolioError(
        FolioErrorCodes.InvalidPdf,
        `${name} is not a PDF or is damaged (zero bytes): the file is empty`,
      );
    data = new Uint8Array(await readFile(path));
    key = createHash('sha1').update(`${path}\0${st.size}\0${st.mtimeMs}`).digest('hex').slice(0, 16);
  } catch (e) {
    if (e instanceof FolioError) throw e;
    const code = (e as { code?: string }).code;
    if (code === 'ENOENT')
      throw new FolioError(FolioErrorCodes.FileNotFound, `${name} was not found (${path}): check the path`);
    throw new FolioError(FolioErrorCodes.FileNotFound, `${name} could not be read (${path}): ${(e as Error).message}`);
  }
  const head = Buffer.from(data.subarray(0, Math.min(data.length, 1024))).toString('latin1');
  if (!head.includes('%PDF-')) {
    throw new FolioError(
      FolioErrorCodes.InvalidPdf,
      `${name} is not a PDF or is damaged (no %PDF header): open it in a PDF viewer to check it`,
    );
  }
  // Before pdf.js takes the bytes: the images it will not decode, named for the pages' warnings.
  const oversizedImages = findOversizedImages(data, MAX_IMAGE_PIXELS);
  const lib = await pdfjs();
  const task: PDFDocumentLoadingTask = lib.getDocument({
    data,
    password: opts.password,
    ...pdfjsAssetOptions(),
    // Keeps font names (…-Bold, …Mono) and the monospace flag on the fonts pdf.js loads.
    fontExtraProperties: true,
    verbosity: 0,
    // Images over 64 Mpx are not decoded (pdf.js skips them): a 35,000 × 4,000 image mask took
    // 2.7 GiB and ~100 s to paint (eval/FINDINGS.md, issue16263.pdf). Their placement is still
    // known from the operator list, so pictures keep their boxes.
    maxImageSize: MAX_IMAGE_PIXELS,
  });
  let doc: PDFDocumentProxy;
  try {
    doc = await pdfjsWork(() => task.promise);
  } catch (e) {
    await task.destroy().catch(() => undefined);
    // The memory budget's own error (server/worker/pdfBudget.ts) says what happened already.
    if (isFolioError(e)) throw e;
    throw mapOpenError(e, name, opts.password !== undefined);
  }
  if (doc.numPages === 0) {
    await task.destroy().catch(() => undefined);
    throw new FolioError(FolioErrorCodes.EmptyDocument, `${name} has no pages: there is nothing to convert`);
  }
  // Statistics are a nicety: over the budget (a bomb on an early page) the defaults do.
  const stats = await pdfjsWork(() => sampleStats(doc)).catch(() => DEFAULT_STATS);
  return {
    path,
    numPages: doc.numPages,
    fileKey: key,
    doc,
    stats,
    ...(oversizedImages.length > 0 ? { oversizedImages } : {}),
    close: () => task.destroy(),
  };
}

function mapOpenError(e: unknown, name: string, hadPassword: boolean): FolioError {
  const err = e as { name?: string; code?: number; message?: string };
  const msg = err?.message ?? String(e);
  if (err?.name === 'PasswordException') {
    // pdf.js: code 1 = a password is needed, 2 = the one given is wrong.
    if (err.code === 2 || hadPassword) {
      return new FolioError(
        FolioErrorCodes.PasswordIncorrect,
        `${name}: the password is incorrect: pass the right one with --password or enter it again`,
      );
    }
    return new FolioError(
      FolioErrorCodes.PasswordRequired,
      `${name} is password-protected: pass --password or enter it when asked`,
    );
  }
  return new FolioError(
    FolioErrorCodes.InvalidPdf,
    `${name} is not a PDF or is damaged (${err?.name ?? 'Error'}): ${msg}`,
  );
}

/** Samples up to 8 pages' text for the body font size and the heading sizes above it. */
async function sampleStats(doc: PDFDocumentProxy): Promise<DocStats> {
  const chars = new Map<number, number>();
  const letters = new Map<number, number>();
  const items = new Map<number, number>();
  /** Sizes at which a line starts with a section number ("1 Introduction", "2.1"). */
  const numbered = new Set<number>();
  let titleCandidate = 0;
  /** Horizontal extent of the title-sized runs at the top of page 1, and that page's width. */
  const titleX = new Map<number, { x0: number; x1: number }>();
  let page1 = { x0: 0, x1: 0 };
  let leftMargin = Infinity;
  const n = Math.min(doc.numPages, 8);
  for (let p = 1; p <= n; p++) {
    const page = await doc.getPage(p);
    try {
      const tc = await page.getTextContent();
      keepSampledText(page, tc);
      // Text turned against the page's own direction (an arXiv stamp at 20 pt up the margin) sets
      // no size of the page's text. The page's direction is its text's: a page with /Rotate
      // draws all of its text turned.
      const turn = (t: number[]) => Math.round((Math.atan2(t[1]!, t[0]!) * 2) / Math.PI) & 3;
      const turns = [0, 0, 0, 0];
      for (const it of tc.items) if ('str' in it) turns[turn(it.transform)]! += it.str.trim().length;
      const pageTurn = turns.indexOf(Math.max(...turns));
      for (const it of tc.items) {
        if (!('str' in it)) continue;
        const len = it.str.trim().length;
        if (len === 0) continue;
        const [a, b, c, d] = it.transform as number[];
        if (
          turn(it.transform) !== pageTurn ||
          Math.min(Math.abs(a), Math.abs(b)) > 0.1 * Math.max(Math.abs(a), Math.abs(b)) ||
          Math.min(Math.abs(c), Math.abs(d)) > 0.1 * Math.max(Math.abs(c), Math.abs(d))
        )
          continue;
        const size = Math.round(Math.hypot(c, d) * 2) / 2;
        if (size <= 0) continue;
        chars.set(size, (chars.get(size) ?? 0) + len);
        const nLetters = (it.str.match(/\p{L}/gu) ?? []).length;
        letters.set(size, (letters.get(size) ?? 0) + nLetters);
        items.set(size, (items.get(size) ?? 0) + 1);
        if (SECTION_NUMBER.test(it.str)) numbered.add(size);
        // Big brackets and radicals of a formula are no title.
        if (p === 1 && nLetters > 0 && it.transform[5] > page.view[3] - (page.view[3] - page.view[1]) * 0.45) {
          titleCandidate = Math.max(titleCandidate, size);
          const x0 = it.transform[4] as number;
          const x = titleX.get(size) ?? { x0, x1: x0 + it.width };
          // Centring is read on an upright page only.
          if (pageTurn === 0) titleX.set(size, { x0: Math.min(x.x0, x0), x1: Math.max(x.x1, x0 + it.width) });
        }
        if (p === 1) {
          page1 = { x0: page.view[0], x1: page.view[2] };
          leftMargin = Math.min(leftMargin, it.transform[4] as number);
        }
      }
    } finally {
      page.cleanup();
    }
  }
  const stats = statsFromHistogram(chars, letters);
  // A title is large, near the top of page 1, and short (its size is used for nothing else).
  // Set only a little larger than the body, it is a title where it is centred on the page or the
  // sections under it carry numbers ("1 Introduction" under a 16 pt title over 12 pt text);
  // flush left without numbered sections it may as well be the first section's heading.
  const ratio = titleCandidate / stats.bodySize;
  const numberedBelow = [...numbered].some((s) => s < titleCandidate && s > stats.bodySize);
  const tx = titleX.get(titleCandidate);
  const pageW = page1.x1 - page1.x0;
  // Centred: set in from the text's left edge (a long flush-left line has its middle there too).
  const centred =
    tx !== undefined &&
    pageW > 0 &&
    tx.x0 > leftMargin + pageW * TITLE_CENTRE_TOLERANCE &&
    Math.abs((tx.x0 + tx.x1) / 2 - (page1.x0 + page1.x1) / 2) < pageW * TITLE_CENTRE_TOLERANCE &&
    tx.x1 - tx.x0 < pageW * 0.9;
  if (
    (ratio >= TITLE_MIN_BODY_RATIO || (ratio >= TITLE_SMALL_MIN_BODY_RATIO && (numberedBelow || centred))) &&
    (chars.get(titleCandidate) ?? 0) <= 200 &&
    titleCandidate === stats.headingSizes[0]
  ) {
    stats.titleSize = titleCandidate;
  }
  return stats;
}

/** A title is set at least this much larger than the body… */
const TITLE_MIN_BODY_RATIO = 1.4;
/** …or this much, centred or over numbered section headings (a 16 pt title over 12 pt text). */
const TITLE_SMALL_MIN_BODY_RATIO = 1.25;
/** A centred title's middle lies within this share of the page width of the page's middle. */
const TITLE_CENTRE_TOLERANCE = 0.04;
const SECTION_NUMBER = /^\s*\d{1,2}(\.\d{1,2})*\.?(\s+\p{L}|$)/u;
/** A heading size holds a few letters at least: a formula's big brackets set at 32 pt do not rank headings. */
const HEADING_SIZE_MIN_LETTERS = 2;

/** Body size (most characters) and the heading sizes above it; `letters` (per size), when given, drops sizes that hold no words. */
export function statsFromHistogram(chars: Map<number, number>, letters?: Map<number, number>): DocStats {
  let bodySize = DEFAULT_STATS.bodySize;
  let best = -1;
  for (const [size, count] of chars) if (count > best) [bodySize, best] = [size, count];
  const headingSizes = [...chars.keys()]
    .filter(
      (s) =>
        s >= bodySize * 1.12 && s - bodySize >= 1 && (!letters || (letters.get(s) ?? 0) >= HEADING_SIZE_MIN_LETTERS),
    )
    .sort((a, b) => b - a);
  return { bodySize, headingSizes };
}
