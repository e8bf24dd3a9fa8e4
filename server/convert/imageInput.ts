/**
 * Images as input (`folio convert scan.png|jpg|tiff`): scans often arrive as images. The image
 * becomes a PDF of image-only pages (one per TIFF page) at the image's own resolution, so it
 * goes through the same path as a scanned PDF: no text layer → 200-dpi render → OCR → layout.
 * A JPEG is embedded as it is (DCTDecode, no recompression); other formats as deflated RGB.
 * The PDF is written to a temporary folder under the image's own name (picture crops and
 * messages then carry that name) and removed after the conversion.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { tmpdir } from 'node:os';
import { deflateSync } from 'node:zlib';
import type sharpType from 'sharp';

// sharp (native, ~0.1 s to load) only for image inputs: a PDF's conversion never loads it.
const loadSharp = async (): Promise<typeof sharpType> => (await import('sharp')).default;

export const IMAGE_INPUT = /\.(png|jpe?g|tiff?)$/i;

/** Resolution assumed when the file does not say (a common scanner setting). */
const DEFAULT_DPI = 300;

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

async function pageImages(path: string): Promise<PdfImage[]> {
  const bytes = readFileSync(path);
  const sharp = await loadSharp();
  const meta = await sharp(bytes).metadata();
  const dpi = meta.density && meta.density >= 50 && meta.density <= 2400 ? meta.density : DEFAULT_DPI;
  const size = (w: number, h: number) => ({ wPt: (w / dpi) * 72, hPt: (h / dpi) * 72 });
  if (meta.format === 'jpeg' && meta.width && meta.height && (meta.channels === 3 || meta.channels === 1) && (meta.orientation ?? 1) === 1) {
    return [{ width: meta.width, height: meta.height, ...size(meta.width, meta.height), filter: 'DCTDecode', colorSpace: meta.channels === 1 ? 'DeviceGray' : 'DeviceRGB', data: bytes }];
  }
  const pages = meta.format === 'tiff' ? (meta.pages ?? 1) : 1;
  const out: PdfImage[] = [];
  for (let page = 0; page < pages; page++) {
    // rotate() applies the EXIF orientation; flatten() puts transparency on white paper.
    const { data, info } = await sharp(bytes, { page }).rotate().flatten({ background: '#ffffff' }).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
    out.push({ width: info.width, height: info.height, ...size(info.width, info.height), filter: 'FlateDecode', colorSpace: 'DeviceRGB', data: deflateSync(data) });
  }
  return out;
}

/** A minimal PDF (one image XObject drawn full-page per page), with a correct cross-reference table. */
export function imagesToPdf(images: readonly PdfImage[]): Buffer {
  const objects: Buffer[] = [];
  const add = (body: Buffer | string) => {
    objects.push(typeof body === 'string' ? Buffer.from(body, 'latin1') : body);
    return objects.length;
  };
  const pagesId = 2;
  add('<< /Type /Catalog /Pages 2 0 R >>');
  add(''); // placeholder for the page tree
  const kids: number[] = [];
  for (const img of images) {
    const head = `<< /Type /XObject /Subtype /Image /Width ${img.width} /Height ${img.height} /ColorSpace /${img.colorSpace} /BitsPerComponent 8 /Filter /${img.filter} /Length ${img.data.length} >>\nstream\n`;
    const imgId = add(Buffer.concat([Buffer.from(head, 'latin1'), img.data, Buffer.from('\nendstream', 'latin1')]));
    const w = img.wPt.toFixed(2);
    const h = img.hPt.toFixed(2);
    const content = `q ${w} 0 0 ${h} 0 0 cm /Im0 Do Q`;
    const contentId = add(`<< /Length ${content.length} >>\nstream\n${content}\nendstream`);
    kids.push(add(`<< /Type /Page /Parent ${pagesId} 0 R /MediaBox [0 0 ${w} ${h}] /Resources << /XObject << /Im0 ${imgId} 0 R >> >> /Contents ${contentId} 0 R >>`));
  }
  objects[pagesId - 1] = Buffer.from(`<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`, 'latin1');
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let offset = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(offset);
    const chunk = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`, 'latin1'), body, Buffer.from('\nendobj\n', 'latin1')]);
    parts.push(chunk);
    offset += chunk.length;
  });
  const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${offset}\n%%EOF\n`;
  parts.push(Buffer.from(xref, 'latin1'));
  return Buffer.concat(parts);
}

/**
 * For an image path: writes the PDF and returns its path and a cleanup; for anything else
 * returns the path unchanged. A file that is not a readable image gets an error naming it.
 */
export async function pdfForInput(path: string): Promise<{ path: string; cleanup: () => void }> {
  if (!IMAGE_INPUT.test(path)) return { path, cleanup: () => undefined };
  let images: PdfImage[];
  try {
    images = await pageImages(path);
  } catch (e) {
    throw new Error(`${basename(path)} could not be read as an image (${(e as Error).message.split('\n')[0]}): check that it is a PNG, JPEG or TIFF file`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'folio-image-'));
  const pdf = join(dir, basename(path).replace(IMAGE_INPUT, '') + '.pdf');
  writeFileSync(pdf, imagesToPdf(images));
  return { path: pdf, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
