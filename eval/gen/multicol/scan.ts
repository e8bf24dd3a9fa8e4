/**
 * Scanned variants of the typeset PDFs: each page rendered at 150, 200 or 300 dpi (poppler's pdftoppm),
 * turned by a slight skew, blurred (the hard profile), speckled with seeded noise, JPEG-encoded
 * and written into an image-only PDF (no text layer), so Folio must OCR it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { rng } from './doc';

/** The resolutions the scanned sets are made at (200: the default of office scanners). */
export const SCAN_DPIS = [150, 200, 300] as const;
export type ScanDpi = (typeof SCAN_DPIS)[number];

/**
 * Colour components of a JPEG, from its frame header. sharp 0.35 writes a one-channel raw image
 * as a three-component JPEG unless told `b-w`; a PDF that calls such a stream /DeviceGray is
 * read by pdf.js, but poppler (pdftoppm, so the person checking a scan) shows each row three
 * times over, squeezed.
 */
export function jpegComponents(jpg: Buffer): number {
  let i = 2;
  while (i + 9 < jpg.length) {
    if (jpg[i] !== 0xff) break;
    const marker = jpg[i + 1]!;
    if (marker >= 0xc0 && marker <= 0xc3) return jpg[i + 9]!;
    i += 2 + jpg.readUInt16BE(i + 2);
  }
  throw new Error('imagePdf: a JPEG without a frame header');
}

/** An image-only PDF: one DCT (JPEG) image per page, drawn over the whole page, in the colour space its stream holds. */
export function imagePdf(pages: { jpeg: Buffer; width: number; height: number }[], dpi: ScanDpi = 200): Buffer {
  const chunks: Buffer[] = [];
  const offsets: number[] = [];
  let pos = 0;
  const push = (b: Buffer | string) => {
    const buf = typeof b === 'string' ? Buffer.from(b, 'latin1') : b;
    chunks.push(buf);
    pos += buf.length;
  };
  const obj = (n: number, body: (Buffer | string)[]) => {
    offsets[n] = pos;
    push(`${n} 0 obj\n`);
    for (const b of body) push(b);
    push('\nendobj\n');
  };
  push('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n');
  const n = pages.length;
  const kids = pages.map((_, i) => `${3 + i * 3} 0 R`).join(' ');
  obj(1, ['<< /Type /Catalog /Pages 2 0 R >>']);
  obj(2, [`<< /Type /Pages /Kids [${kids}] /Count ${n} >>`]);
  pages.forEach((p, i) => {
    const [pg, img, content] = [3 + i * 3, 4 + i * 3, 5 + i * 3];
    const w = (p.width * 72) / dpi;
    const h = (p.height * 72) / dpi;
    obj(pg, [
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${w.toFixed(2)} ${h.toFixed(2)}] /Resources << /XObject << /Im0 ${img} 0 R >> >> /Contents ${content} 0 R >>`,
    ]);
    const cs = { 1: '/DeviceGray', 3: '/DeviceRGB', 4: '/DeviceCMYK' }[jpegComponents(p.jpeg)] ?? '/DeviceRGB';
    obj(img, [
      `<< /Type /XObject /Subtype /Image /Width ${p.width} /Height ${p.height} /ColorSpace ${cs} /BitsPerComponent 8 /Filter /DCTDecode /Length ${p.jpeg.length} >>\nstream\n`,
      p.jpeg,
      '\nendstream',
    ]);
    const draw = `q ${w.toFixed(2)} 0 0 ${h.toFixed(2)} 0 0 cm /Im0 Do Q`;
    obj(content, [`<< /Length ${draw.length} >>\nstream\n${draw}\nendstream`]);
  });
  const xref = pos;
  const total = 3 + n * 3;
  push(`xref\n0 ${total}\n0000000000 65535 f \n`);
  for (let i = 1; i < total; i++) push(`${String(offsets[i]).padStart(10, '0')} 00000 n \n`);
  push(`trailer\n<< /Size ${total} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return Buffer.concat(chunks);
}

/**
 * How a scan is degraded. `plain`: the first scanned sets (issue 15), skew 0.3–0.8°. `hard`:
 * issue 31's harder twins, as measured on real two-column scans: skew 0.25–0.9°, a Gaussian
 * blur of sigma 0.4–0.8 px (a sheet not flat on the glass, a soft lens), the same noise and JPEG q75.
 */
export interface ScanProfile {
  /** Skew magnitude in degrees, drawn uniformly from [min, max], either sign. */
  angle: readonly [number, number];
  /** Gaussian blur sigma in pixels, drawn uniformly from [min, max]; none when absent. */
  blur?: readonly [number, number];
}

export const SCAN_PROFILES = {
  plain: { angle: [0.3, 0.8] },
  hard: { angle: [0.25, 0.9], blur: [0.4, 0.8] },
  // Issue 40's outside scans: tilt 0.3–0.8°, light blur, the same noise and JPEG q75 (drawn with
  // seeds of their own, on pages set with narrow gutters: build.ts NARROW_GUTTER_MM).
  narrow: { angle: [0.3, 0.8], blur: [0.3, 0.6] },
} as const satisfies Record<string, ScanProfile>;
export type ScanProfileName = keyof typeof SCAN_PROFILES;

export async function scanVariant(
  pdf: string,
  out: string,
  seed: number,
  dpi: ScanDpi = 200,
  profile: ScanProfile = SCAN_PROFILES.plain,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'folio-scan-'));
  try {
    execFileSync('pdftoppm', ['-r', String(dpi), '-gray', '-png', pdf, join(dir, 'p')]);
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.png'))
      .sort();
    if (files.length === 0) throw new Error(`pdftoppm rendered no page of ${pdf}`);
    const r = rng(seed);
    const pages = [];
    for (const f of files) {
      // A slight skew, as from a sheet laid a little askew on the glass.
      const [a0, a1] = profile.angle;
      const angle = (r() < 0.5 ? -1 : 1) * (a0 + r() * (a1 - a0));
      // Drawn only for a blurring profile, so the plain sets keep their noise pattern.
      const sigma = profile.blur ? profile.blur[0] + r() * (profile.blur[1] - profile.blur[0]) : 0;
      let img = sharp(readFileSync(join(dir, f))).rotate(angle, { background: '#ffffff' });
      if (sigma > 0) img = sharp(await img.png().toBuffer()).blur(sigma);
      const { data, info } = await img.greyscale().raw().toBuffer({ resolveWithObject: true });
      const px = new Uint8Array(data.buffer, data.byteOffset, data.length);
      const ch = info.channels;
      const gray = Buffer.alloc(info.width * info.height);
      for (let i = 0; i < gray.length; i++) {
        // Sensor noise (±12 levels) and rare dark specks.
        let v = px[i * ch] + (r() + r() + r() - 1.5) * 16;
        if (r() < 0.0004) v = 40;
        gray[i] = Math.max(0, Math.min(255, Math.round(v)));
      }
      const jpeg = await sharp(gray, { raw: { width: info.width, height: info.height, channels: 1 } })
        .toColourspace('b-w')
        .jpeg({ quality: 75 })
        .toBuffer();
      pages.push({ jpeg, width: info.width, height: info.height });
    }
    writeFileSync(out, imagePdf(pages, dpi));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
