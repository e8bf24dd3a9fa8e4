/**
 * The file list of a zip (a VSIX is one), read from its central directory: names and sizes,
 * nothing decompressed. Enough for the packaging tests; ZIP64 archives (over 4 GiB or 65,535
 * entries) are refused rather than misread.
 */
import { readFileSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';

export interface ZipEntry {
  name: string;
  compressedSize: number;
  size: number;
  method: number;
  localOffset: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;

export function zipEntries(file: string): ZipEntry[] {
  const buf = readFileSync(file);
  // The end-of-central-directory record is 22 bytes plus a comment of up to 65,535 bytes.
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 0xffff); i--) {
    if (buf.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error(`${file}: not a zip (no end-of-central-directory record)`);
  const count = buf.readUInt16LE(eocd + 10);
  const offset = buf.readUInt32LE(eocd + 16);
  if (count === 0xffff || offset === 0xffffffff) throw new Error(`${file}: ZIP64 archive, not supported here`);
  const out: ZipEntry[] = [];
  let p = offset;
  for (let n = 0; n < count; n++) {
    if (buf.readUInt32LE(p) !== CENTRAL) throw new Error(`${file}: bad central directory entry ${n} at ${p}`);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    out.push({
      name: buf.toString('utf8', p + 46, p + 46 + nameLen),
      method: buf.readUInt16LE(p + 10),
      compressedSize: buf.readUInt32LE(p + 20),
      size: buf.readUInt32LE(p + 24),
      localOffset: buf.readUInt32LE(p + 42),
    });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

/** One file's bytes, for a stored or deflated entry (the VSIX manifest is small). */
export function zipRead(file: string, name: string): Buffer {
  const e = zipEntries(file).find((x) => x.name === name);
  if (!e) throw new Error(`${file}: no entry ${name}`);
  const buf = readFileSync(file);
  const p = e.localOffset;
  if (buf.readUInt32LE(p) !== 0x04034b50) throw new Error(`${file}: bad local header for ${name}`);
  // Sizes come from the central directory: the local header may defer them to a data descriptor.
  const data = p + 30 + buf.readUInt16LE(p + 26) + buf.readUInt16LE(p + 28);
  const raw = buf.subarray(data, data + e.compressedSize);
  if (e.method === 0) return Buffer.from(raw);
  if (e.method === 8) return inflateRawSync(raw);
  throw new Error(`${file}: ${name} uses compression method ${e.method}`);
}
