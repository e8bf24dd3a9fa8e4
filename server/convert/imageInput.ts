/**
 * Images as input (`folio convert scan.png|jpg|tiff`): scans often arrive as images. The image
 * becomes a PDF of image-only pages (one per TIFF page) at the image's own resolution, so it
 * goes through the same path as a scanned PDF: no text layer → 200-dpi render → OCR → layout.
 * A JPEG is embedded as it is (DCTDecode, no recompression); other formats as deflated RGB.
 * The PDF is written to a temporary folder under the image's own name (picture crops and
 * messages then carry that name) and removed after the conversion.
 *
 * An image is untrusted input like a PDF (issue 21 item 7): its size and page count are read
 * from the header and checked before a pixel is decoded (`MAX_IMAGE_PIXELS` per page, the page
 * limit and `MAX_IMAGE_PAGES` for TIFF, `MAX_TOTAL_PIXELS` over all pages); pages are decoded
 * one at a time and written to the PDF as they come (memory holds one page); the document's
 * time budget and cancel apply between and during decodes (a decode still running in sharp's
 * thread is abandoned, its result dropped).
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { basename, join } from 'node:path';
import { tmpdir } from 'node:os';
import { deflateSync } from 'node:zlib';
import type sharpType from 'sharp';
import { FolioErrorCodes } from '../../common/protocol';
import { CancelledError, FolioError, isCancelled, messageOf } from '../errors';

export const IMAGE_INPUT = /\.(png|jpe?g|tiff?)$/i;

/** Resolution assumed when the file does not say (a common scanner setting). */
const DEFAULT_DPI = 300;

/** Pixels of one page, as pdf.js's own image limit (`maxImageSize`, docs/limits.md): a 600-dpi A3 scan fits. */
export const MAX_IMAGE_PIXELS = 64 * 1024 * 1024;
/** Pages of one TIFF (the document's page limit applies too, whichever is lower). */
export const MAX_IMAGE_PAGES = 1000;
/** Pixels of all pages together (about 470 A4 pages at 300 dpi): decoding stays within minutes, not hours. */
export const MAX_TOTAL_PIXELS = 4096 * 1024 * 1024;

const MP = 1024 * 1024;

interface PdfImage {
  width: number;
  height: number;
  /** Page size in points. */
  wPt: number;
  hPt: number;
  filter: 'DCTDecode' | 'FlateDecode';
  colorSpace: 'DeviceRGB' | 'DeviceGray' | 'DeviceCMYK';
  data: Buffer;
}

export interface ImageInputOptions {
  /** The document's cancel and time budget: stops decoding between pages and abandons a running decode. */
  signal?: AbortSignal;
  /** The document's page limit (ConvertLimits.maxPages). */
  maxPages?: number;
}

function tooLarge(path: string, what: string): FolioError {
  return new FolioError(
    FolioErrorCodes.TooLarge,
    `${basename(path)} ${what}: it was not converted. If the image is trusted, scale it down or split it into smaller files.`,
  );
}

/** Waits for `p` unless the signal fires first (the work goes on in sharp's thread; its result is dropped). */
function abortable<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(new CancelledError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new CancelledError());
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/**
 * A minimal PDF (one image XObject drawn full-page per page, a correct cross-reference table),
 * written object by object to a file: pages go out as they are decoded.
 */
class StreamedPdf {
  private offset = 0;
  private readonly offsets: number[] = [];
  private readonly kids: number[] = [];
  /** Objects 1 (catalog) and 2 (page tree) are written last, when the pages are known. */
  private next = 3;

  constructor(private readonly fd: number) {
    this.write(Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1'));
  }

  private write(b: Buffer): void {
    writeSync(this.fd, b);
    this.offset += b.length;
  }

  private object(id: number, body: Buffer | string): void {
    this.offsets[id - 1] = this.offset;
    const data = typeof body === 'string' ? Buffer.from(body, 'latin1') : body;
    this.write(Buffer.concat([Buffer.from(`${id} 0 obj\n`, 'latin1'), data, Buffer.from('\nendobj\n', 'latin1')]));
  }

  addPage(img: PdfImage): void {
    const imgId = this.next++;
    const contentId = this.next++;
    const pageId = this.next++;
    const head = `<< /Type /XObject /Subtype /Image /Width ${img.width} /Height ${img.height} /ColorSpace /${img.colorSpace} /BitsPerComponent 8 /Filter /${img.filter} /Length ${img.data.length} >>\nstream\n`;
    this.object(imgId, Buffer.concat([Buffer.from(head, 'latin1'), img.data, Buffer.from('\nendstream', 'latin1')]));
    const w = img.wPt.toFixed(2);
    const h = img.hPt.toFixed(2);
    const content = `q ${w} 0 0 ${h} 0 0 cm /Im0 Do Q`;
    this.object(contentId, `<< /Length ${content.length} >>\nstream\n${content}\nendstream`);
    this.object(
      pageId,
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${w} ${h}] /Resources << /XObject << /Im0 ${imgId} 0 R >> >> /Contents ${contentId} 0 R >>`,
    );
    this.kids.push(pageId);
  }

  finish(): void {
    this.object(1, '<< /Type /Catalog /Pages 2 0 R >>');
    this.object(
      2,
      `<< /Type /Pages /Kids [${this.kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${this.kids.length} >>`,
    );
    const size = this.next;
    const xref = `xref\n0 ${size}\n0000000000 65535 f \n${this.offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}trailer\n<< /Size ${size} /Root 1 0 R >>\nstartxref\n${this.offset}\n%%EOF\n`;
    this.write(Buffer.from(xref, 'latin1'));
  }
}

/** Checks the header and writes the PDF page by page. */
async function writeImagePdf(path: string, file: string, opts: ImageInputOptions): Promise<void> {
  const bytes = readFileSync(path);
  // sharp (native, ~0.1 s to load) only for image inputs: a PDF's conversion never loads it (CLI start-up).
  const sharp: typeof sharpType = (await import('sharp')).default;
  // Header only: sharp's metadata() reads the size and the TIFF page count without decoding pixels.
  const meta = await abortable(sharp(bytes, { limitInputPixels: false }).metadata(), opts.signal);
  const width = meta.width ?? 0;
  const height = meta.pageHeight ?? meta.height ?? 0;
  if (width * height > MAX_IMAGE_PIXELS) {
    throw tooLarge(
      path,
      `is ${width} × ${height} pixels (${Math.round((width * height) / MP)} megapixels), more than the ${MAX_IMAGE_PIXELS / MP}-megapixel limit of an image page`,
    );
  }
  const pages = meta.format === 'tiff' ? (meta.pages ?? 1) : 1;
  const pageCap = Math.min(MAX_IMAGE_PAGES, opts.maxPages ?? MAX_IMAGE_PAGES);
  if (pages > pageCap)
    throw tooLarge(path, `has ${pages} pages, more than the limit of ${pageCap} pages of an image input`);
  // Estimated from the first page (pages may differ: each is checked again when decoded).
  if (pages * width * height > MAX_TOTAL_PIXELS) {
    throw tooLarge(
      path,
      `holds ${Math.round((pages * width * height) / MP)} megapixels over its ${pages} pages, more than the limit of ${MAX_TOTAL_PIXELS / MP} megapixels of an image input`,
    );
  }
  const dpi = meta.density && meta.density >= 50 && meta.density <= 2400 ? meta.density : DEFAULT_DPI;
  const size = (w: number, h: number) => ({ wPt: (w / dpi) * 72, hPt: (h / dpi) * 72 });
  const fd = openSync(file, 'wx', 0o600);
  try {
    const pdf = new StreamedPdf(fd);
    if (
      meta.format === 'jpeg' &&
      meta.width &&
      meta.height &&
      (meta.channels === 3 || meta.channels === 1) &&
      (meta.orientation ?? 1) === 1
    ) {
      pdf.addPage({
        width: meta.width,
        height: meta.height,
        ...size(meta.width, meta.height),
        filter: 'DCTDecode',
        colorSpace: meta.channels === 1 ? 'DeviceGray' : 'DeviceRGB',
        data: bytes,
      });
    } else {
      let total = 0;
      for (let page = 0; page < pages; page++) {
        if (opts.signal?.aborted) throw new CancelledError();
        // limitInputPixels: sharp checks each page's own header before decoding it (TIFF pages
        // may differ in size from the first).
        const decode = sharp(bytes, { page, limitInputPixels: MAX_IMAGE_PIXELS, sequentialRead: true })
          // rotate() applies the EXIF orientation; flatten() puts transparency on white paper.
          .rotate()
          .flatten({ background: '#ffffff' })
          .removeAlpha()
          .toColourspace('srgb')
          .raw()
          .toBuffer({ resolveWithObject: true });
        const { data, info } = await abortable(decode, opts.signal);
        total += info.width * info.height;
        if (total > MAX_TOTAL_PIXELS)
          throw tooLarge(
            path,
            `holds more than ${MAX_TOTAL_PIXELS / MP} megapixels over its pages, the limit of an image input`,
          );
        pdf.addPage({
          width: info.width,
          height: info.height,
          ...size(info.width, info.height),
          filter: 'FlateDecode',
          colorSpace: 'DeviceRGB',
          data: deflateSync(data),
        });
      }
    }
    pdf.finish();
  } finally {
    closeSync(fd);
  }
}

/**
 * For an image path: writes the PDF and returns its path and a cleanup; for anything else
 * returns the path unchanged. A file that is not a readable image gets an error naming it; one
 * past the limits a `TooLarge` error; a cancel or the time budget a `CancelledError`.
 */
export async function pdfForInput(
  path: string,
  opts: ImageInputOptions = {},
): Promise<{ path: string; cleanup: () => void }> {
  if (!IMAGE_INPUT.test(path)) return { path, cleanup: () => undefined };
  const dir = mkdtempSync(join(tmpdir(), 'folio-image-'));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  const pdf = join(dir, basename(path).replace(IMAGE_INPUT, '') + '.pdf');
  try {
    await writeImagePdf(path, pdf, opts);
  } catch (e) {
    cleanup();
    if (e instanceof FolioError || isCancelled(e)) throw e;
    // A file that is not the image its name says is damaged input, as a bad PDF is.
    throw new FolioError(
      FolioErrorCodes.InvalidPdf,
      `${basename(path)} could not be read as an image (${messageOf(e).split('\n')[0]}): check that it is a PNG, JPEG or TIFF file`,
    );
  }
  return { path: pdf, cleanup };
}
