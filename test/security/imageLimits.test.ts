/**
 * Issue 21 item 7: image inputs within budgets. The images are written here byte by byte (PNG
 * and TIFF are simple formats; sharp and libtiff read them as any other file):
 * - a 16383 × 16383 PNG (about 270 KB of deflated grey): before the fix sharp decoded it to
 *   ~800 MB of RGB (the issue measured 968 MB); now it is refused from its header;
 * - a TIFF of 400 pages of 4000 × 4000 sharing one deflated strip (a few hundred KB): before,
 *   every page was decoded and kept (the issue measured 1.9 GB); now the header's page count
 *   and pixel total refuse it, and pages that are accepted are decoded one at a time;
 * - the document's time budget and cancel reach the decoding (before, it ran before both).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { crc32, createDeflate, deflateSync } from 'node:zlib';
import { runCli } from './issue21Cli';
import { pdfForInput } from '../../server/convert/imageInput';
import { CancelledError } from '../../server/errors';

let dir: string;
const env = () => ({ FOLIO_CACHE_DIR: join(dir, 'cache') });

/** A greyscale PNG of zeros, `w` × `h`, deflated slice by slice without holding the raw image. */
async function zeroPng(w: number, h: number): Promise<Buffer> {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8; // bit depth; colour type 0 (grey)
  const z = createDeflate({ level: 9 });
  const parts: Buffer[] = [];
  z.on('data', (d: Buffer) => parts.push(d));
  const done = new Promise((res) => z.on('end', res));
  const rows = 256;
  const slice = Buffer.alloc((w + 1) * rows); // each row: filter byte 0, then w zero pixels
  for (let y = 0; y < h; y += rows) {
    if (!z.write(slice.subarray(0, (w + 1) * Math.min(rows, h - y)))) await new Promise((res) => z.once('drain', res));
  }
  z.end();
  await done;
  const sig = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([sig, chunk('IHDR', ihdr), chunk('IDAT', Buffer.concat(parts)), chunk('IEND', Buffer.alloc(0))]);
}

/** A little-endian TIFF of `pages` greyscale pages of `w` × `h`, every page's one strip the same deflated zeros. */
function sharedStripTiff(pages: number, w: number, h: number): Buffer {
  const strip = deflateSync(Buffer.alloc(w * h));
  const header = Buffer.alloc(8);
  header.write('II', 0, 'latin1');
  header.writeUInt16LE(42, 2);
  const stripAt = 8;
  const firstIfd = stripAt + strip.length + ((stripAt + strip.length) % 2);
  header.writeUInt32LE(firstIfd, 4);
  const entries: [number, number, number][] = [
    [256, 4, w],
    [257, 4, h],
    [258, 3, 8],
    [259, 3, 8], // Adobe deflate
    [262, 3, 1], // BlackIsZero
    [273, 4, stripAt],
    [277, 3, 1],
    [278, 4, h],
    [279, 4, strip.length],
  ];
  const ifdSize = 2 + entries.length * 12 + 4;
  const ifds = Buffer.alloc(ifdSize * pages);
  for (let p = 0; p < pages; p++) {
    const at = p * ifdSize;
    ifds.writeUInt16LE(entries.length, at);
    entries.forEach(([tag, type, value], i) => {
      const e = at + 2 + i * 12;
      ifds.writeUInt16LE(tag, e);
      ifds.writeUInt16LE(type, e + 2);
      ifds.writeUInt32LE(1, e + 4);
      if (type === 3) ifds.writeUInt16LE(value, e + 8);
      else ifds.writeUInt32LE(value, e + 8);
    });
    ifds.writeUInt32LE(p === pages - 1 ? 0 : firstIfd + (p + 1) * ifdSize, at + 2 + entries.length * 12);
  }
  const pad = Buffer.alloc(firstIfd - stripAt - strip.length);
  return Buffer.concat([header, strip, pad, ifds]);
}

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'folio-sec-images-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('a 16383 × 16383 PNG is refused from its header, cheaply', async () => {
  const png = await zeroPng(16383, 16383);
  assert.ok(png.length < 1_000_000, `${png.length} bytes`);
  writeFileSync(join(dir, 'huge.png'), png);
  const r = await runCli(['convert', join(dir, 'huge.png'), '-o', join(dir, 'huge.md'), '-q'], {
    cwd: dir,
    env: env(),
    maxRssMb: 500,
    timeoutMs: 120_000,
  });
  assert.equal(r.killed, undefined, `stopped by the test's guard (${r.killed}, peak ${r.peakRssMb} MB)`);
  assert.equal(r.status, 1);
  assert.match(
    r.stderr,
    /huge\.png is 16383 × 16383 pixels \(256 megapixels\), more than the 64-megapixel limit of an image page: it was not converted/,
  );
  process.stdout.write(`# 16383² PNG (${png.length} bytes) refused in ${r.wallMs} ms, peak RSS ${r.peakRssMb} MB\n`);
});

test('a TIFF of 400 pages sharing one strip is refused from its header (page count, pixel total)', async () => {
  const tiff = sharedStripTiff(400, 4000, 4000);
  writeFileSync(join(dir, 'pages.tiff'), tiff);
  let r = await runCli(['convert', join(dir, 'pages.tiff'), '-o', join(dir, 'pages.md'), '-q'], {
    cwd: dir,
    env: env(),
    maxRssMb: 500,
    timeoutMs: 120_000,
  });
  assert.equal(r.killed, undefined, `stopped by the test's guard (${r.killed}, peak ${r.peakRssMb} MB)`);
  assert.equal(r.status, 1);
  assert.match(
    r.stderr,
    /pages\.tiff holds 6104 megapixels over its 400 pages, more than the limit of 4096 megapixels of an image input/,
  );
  process.stdout.write(
    `# 400-page TIFF (${tiff.length} bytes) refused in ${r.wallMs} ms, peak RSS ${r.peakRssMb} MB\n`,
  );
  r = await runCli(['convert', join(dir, 'pages.tiff'), '-o', join(dir, 'pages.md'), '-q', '--max-pages', '100'], {
    cwd: dir,
    env: env(),
    maxRssMb: 500,
  });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /pages\.tiff has 400 pages, more than the limit of 100 pages/);
});

test('decoding an image runs inside the time budget and stops on cancel, one page in memory at a time', async () => {
  const tiff = join(dir, 'forty.tiff');
  writeFileSync(tiff, sharedStripTiff(40, 3000, 3000));
  // Baseline, same run: the whole decode to a PDF.
  let t = Date.now();
  const made = await pdfForInput(tiff);
  const fullMs = Date.now() - t;
  made.cleanup();
  // Cancelled once the first page is being decoded: it stops long before the rest is done.
  const ac = new AbortController();
  t = Date.now();
  const run = pdfForInput(tiff, { signal: ac.signal });
  setImmediate(() => ac.abort());
  await assert.rejects(run, (e) => e instanceof CancelledError);
  const stopMs = Date.now() - t;
  process.stdout.write(`# 40 pages of 3000²: decoded in ${fullMs} ms; cancelled after ${stopMs} ms\n`);
  assert.ok(stopMs < fullMs / 4, `cancel answered in ${stopMs} ms, the full decode takes ${fullMs} ms`);
  // Through the CLI: the document's time budget stops the decoding, with its message.
  const r = await runCli(['convert', tiff, '-o', join(dir, 'forty.md'), '-q', '--max-document-seconds', '1'], {
    cwd: dir,
    env: env(),
    maxRssMb: 700,
  });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /time budget of 1 s ran out/);
});
