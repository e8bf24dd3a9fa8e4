/**
 * Issue 39, "image size limits warn by name" (audit round 4, O2): pdf.js drops an image over the
 * 64-megapixel decoding limit without a word, so a picture vanished with no warning. The page now
 * says which image it was, its size and the limit. The PDFs are written here: a 1-bit image of
 * 9000 × 8000 pixels (72 megapixels) compresses to a few KB.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { analyzePage, openPdf } from '../../server/pipeline/index';
import { findOversizedImages, MAX_IMAGE_PIXELS } from '../../server/pdf/oversizedImages';
import { options } from './analyze';

const dir = mkdtempSync(join(tmpdir(), 'folio-bigimg-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** One page: a line of text and the images placed by `Do`, each `{name, w, h}` a grey 1-bit image. */
function imagePdf(images: { name: string; w: number; h: number }[]): Buffer {
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let size = 0;
  const push = (b: Buffer) => {
    parts.push(b);
    size += b.length;
  };
  const obj = (n: number, head: string, stream?: Buffer) => {
    offsets[n] = size;
    push(Buffer.from(`${n} 0 obj\n${head}\n`, 'latin1'));
    if (stream) push(Buffer.concat([Buffer.from('stream\n'), stream, Buffer.from('\nendstream\n')]));
    push(Buffer.from('endobj\n', 'latin1'));
  };
  push(Buffer.from('%PDF-1.5\n', 'latin1'));
  const draws = images.map((im, i) => `q 200 0 0 150 ${100 + i * 210} 300 cm /${im.name} Do Q`).join('\n');
  const content = Buffer.from(`BT /F1 12 Tf 72 720 Td (The survey map follows.) Tj ET\n${draws}\n`, 'latin1');
  const xobjects = images.map((im, i) => `/${im.name} ${6 + i} 0 R`).join(' ');
  obj(1, '<< /Type /Catalog /Pages 2 0 R >>');
  obj(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  obj(
    3,
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 842 842] /Resources << /Font << /F1 5 0 R >> /XObject << ${xobjects} >> >> /Contents 4 0 R >>`,
  );
  obj(4, `<< /Length ${content.length} >>`, content);
  obj(5, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  images.forEach((im, i) => {
    const data = deflateSync(Buffer.alloc(Math.ceil(im.w / 8) * im.h, 0x55), { level: 9 });
    obj(
      6 + i,
      `<< /Type /XObject /Subtype /Image /Width ${im.w} /Height ${im.h} /ColorSpace /DeviceGray /BitsPerComponent 1 /Filter /FlateDecode /Length ${data.length} >>`,
      data,
    );
  });
  const count = 6 + images.length;
  const xref = size;
  let table = `xref\n0 ${count}\n0000000000 65535 f \n`;
  for (let n = 1; n < count; n++) table += `${String(offsets[n]).padStart(10, '0')} 00000 n \n`;
  push(Buffer.from(`${table}trailer\n<< /Size ${count} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}

async function warningsOf(name: string, pdf: Buffer): Promise<string[]> {
  const path = join(dir, name);
  writeFileSync(path, pdf);
  const doc = await openPdf(path);
  try {
    return (await analyzePage(doc, 1, options())).warnings;
  } finally {
    await doc.close();
  }
}

test('findOversizedImages: image dictionaries over the limit, by object, resource name and size', () => {
  const pdf = imagePdf([
    { name: 'Map', w: 9000, h: 8000 },
    { name: 'Logo', w: 400, h: 300 },
  ]);
  assert.deepEqual(findOversizedImages(pdf), [{ ref: '6 0 R', name: 'Map', width: 9000, height: 8000 }]);
  // The limit itself is allowed (pdf.js drops only what is over it).
  assert.deepEqual(findOversizedImages(imagePdf([{ name: 'Edge', w: 8192, h: 8192 }])), []);
  assert.equal(8192 * 8192, MAX_IMAGE_PIXELS);
});

test('a picture over the 64-megapixel limit is left out with a warning naming it, its size and the limit', async () => {
  const w = await warningsOf('map.pdf', imagePdf([{ name: 'Map', w: 9000, h: 8000 }]));
  assert.deepEqual(w, [
    'a picture was left out: image /Map (object 6 0 R), 9000 × 8000 pixels (72 megapixels) is more than the ' +
      '64-megapixel limit of image decoding: it was not decoded and the page has no picture there ' +
      '(no flag raises this limit; docs/limits.md)',
  ]);
});

test('pictures within the limit, and pages that place no oversized image, get no such warning', async () => {
  assert.deepEqual(await warningsOf('small.pdf', imagePdf([{ name: 'Logo', w: 400, h: 300 }])), []);
  const both = await warningsOf(
    'two.pdf',
    imagePdf([
      { name: 'Logo', w: 400, h: 300 },
      { name: 'Scan', w: 10000, h: 9000 },
    ]),
  );
  assert.equal(both.length, 1);
  assert.match(
    both[0],
    /^a picture was left out: image \/Scan \(object 7 0 R\), 10000 × 9000 pixels \(90 megapixels\)/,
  );
});
