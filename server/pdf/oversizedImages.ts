/**
 * Pictures pdf.js does not decode because they are too large (issue 39, "image size limits warn by
 * name"). `getDocument({maxImageSize})` (open.ts) makes pdf.js drop an image over 64 megapixels
 * from the operator list without a word: the security audit's 100-megapixel, 30000² 1-bit and
 * 20000² RGB pictures left no picture and no warning. What is left in the operator list is the
 * image's placement with nothing drawn in it (`save`, `transform`, `restore`), and what the file
 * says of the image is in its stream dictionary, which is never inside a compressed object stream
 * (streams cannot be): so the file's bytes are searched for image dictionaries over the limit
 * (object number, resource name, width and height), and each empty placement on a page is named
 * by the oversized image whose shape matches it best.
 */
import type { OpsCodes } from './graphics';

/** pdf.js's `maxImageSize` as Folio sets it (open.ts; docs/limits.md). */
export const MAX_IMAGE_PIXELS = 64 * 1024 * 1024;

export interface OversizedImage {
  /** Object reference, "12 0 R". */
  ref: string;
  /** The XObject's resource name where the file spells it out (`/Im0 12 0 R`). */
  name?: string;
  width: number;
  height: number;
}

/** Most image dictionaries and references looked at: bounds the search on a hostile file. */
const MAX_HITS = 10_000;

/** The image XObjects of a PDF's bytes whose pixel count is over `max`. */
export function findOversizedImages(data: Uint8Array, max = MAX_IMAGE_PIXELS): OversizedImage[] {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const out: OversizedImage[] = [];
  const seen = new Set<string>();
  let at = 0;
  for (let hits = 0; hits < MAX_HITS; hits++) {
    at = buf.indexOf('/Image', at, 'latin1');
    if (at < 0) break;
    const from = Math.max(0, at - 4096);
    const window = buf.toString('latin1', from, Math.min(buf.length, at + 4096));
    at += 6;
    const rel = at - 6 - from;
    // The dictionary this name is in: from the last "obj" before it to the first "stream" after.
    const head = window.lastIndexOf('obj', rel);
    const tail = window.indexOf('stream', rel);
    if (head < 0 || tail < 0) continue;
    const dict = window.slice(head, tail);
    if (!/\/Subtype\s*\/Image(?![A-Za-z])/.test(dict)) continue;
    const num = /(\d+)\s+(\d+)\s+$/.exec(window.slice(Math.max(0, head - 24), head));
    const w = /\/(?:Width|W)\s+(\d+)/.exec(dict);
    const h = /\/(?:Height|H)\s+(\d+)/.exec(dict);
    if (!num || !w || !h) continue;
    const width = Number(w[1]);
    const height = Number(h[1]);
    const ref = `${num[1]} ${num[2]} R`;
    if (width * height <= max || seen.has(ref)) continue;
    seen.add(ref);
    out.push({ ref, width, height });
  }
  for (const img of out) img.name = resourceName(buf, img.ref);
  return out;
}

/** `Im0` where the file says `/Im0 12 0 R` (uncompressed resource dictionaries only). */
function resourceName(buf: Buffer, ref: string): string | undefined {
  const needle = ` ${ref}`;
  let at = 0;
  for (let hits = 0; hits < 1000; hits++) {
    at = buf.indexOf(needle, at, 'latin1');
    if (at < 0) return undefined;
    const before = buf.toString('latin1', Math.max(0, at - 64), at);
    at += needle.length;
    const m = /\/([A-Za-z0-9_.+-]+)\s*$/.exec(before);
    if (m && !/^(Parent|Contents|Resources|Font|Pages|Root|Info|Kids|SMask|Mask)$/.test(m[1])) return m[1];
  }
  return undefined;
}

/** Placements with nothing drawn in them (`save`, `transform`, `restore`): where pdf.js dropped an image. */
export function emptyPlacements(fnArray: number[], OPS: OpsCodes): number {
  let n = 0;
  for (let i = 0; i + 2 < fnArray.length; i++)
    if (fnArray[i] === OPS.save && fnArray[i + 1] === OPS.transform && fnArray[i + 2] === OPS.restore) n++;
  return n;
}

/**
 * The page's warning for the pictures pdf.js left out of it: how many, and the document's images
 * over the limit by name and size (the one it was, when the document has one; the candidates
 * otherwise: the operator list does not say which placement was which).
 */
export function oversizedImageWarning(placements: number, images: readonly OversizedImage[]): string | undefined {
  if (placements === 0 || images.length === 0) return undefined;
  const describe = (img: OversizedImage) => {
    const mp = Math.round((img.width * img.height) / 1e6);
    const label = img.name ? `image /${img.name} (object ${img.ref})` : `image object ${img.ref}`;
    return `${label}, ${img.width} × ${img.height} pixels (${mp} megapixels)`;
  };
  const limit = `more than the ${MAX_IMAGE_PIXELS / 1024 / 1024}-megapixel limit of image decoding`;
  const how = 'it was not decoded and the page has no picture there (no flag raises this limit; docs/limits.md)';
  if (images.length === 1 && placements === 1)
    return `a picture was left out: ${describe(images[0])} is ${limit}: ${how}`;
  const list =
    images.slice(0, 8).map(describe).join('; ') + (images.length > 8 ? `; and ${images.length - 8} more` : '');
  const what = placements === 1 ? 'a picture was' : `${placements} pictures were`;
  return `${what} left out, ${limit}: ${images.length === 1 ? '' : 'one of '}${list}: not decoded, no picture there (no flag raises this limit; docs/limits.md)`;
}
