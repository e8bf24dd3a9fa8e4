/**
 * Hostile Office files for the tests that check every surface refuses them (test/office/hostile,
 * test/mcp/office). LibreOffice 7.4 headless ignores a password on OOXML export (tried: filter
 * options and a Basic macro's `storeToURL` both wrote a plain zip), so `fakeEncryptedOoxml`
 * writes the OLE compound file that Office's encryption produces (header signature and an
 * `EncryptionInfo` stream entry), which is all Folio reads before refusing it. `withPart` takes a
 * real LibreOffice-made document and replaces one part.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { unzipSync, zipSync } from 'fflate';

export function fakeEncryptedOoxml(file: string): void {
  const b = Buffer.alloc(512 * 3);
  Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(b, 0);
  b.writeUInt16LE(0x3e, 24); // minor version
  b.writeUInt16LE(3, 26); // major version 3: 512-byte sectors
  b.writeUInt16LE(0xfffe, 28); // little-endian
  b.writeUInt16LE(9, 30); // sector shift
  b.writeUInt32LE(0, 48); // first directory sector
  // Directory sector (sector 0 after the header): the root entry and "EncryptionInfo".
  const entry = (at: number, name: string, type: number) => {
    Buffer.from(name, 'utf16le').copy(b, at);
    b.writeUInt16LE((name.length + 1) * 2, at + 64);
    b[at + 66] = type;
  };
  entry(512, 'Root Entry', 5);
  entry(512 + 128, 'EncryptionInfo', 2);
  entry(512 + 256, 'EncryptedPackage', 2);
  writeFileSync(file, b);
}

/** `source` (a real Office file) written to `file` with one part replaced or added. */
export function withPart(source: string, file: string, part: string, data: Uint8Array | string): string {
  const files = unzipSync(readFileSync(source));
  files[part] = (typeof data === 'string' ? new TextEncoder().encode(data) : data) as Uint8Array<ArrayBuffer>;
  writeFileSync(file, zipSync(files, { level: 9 }));
  return file;
}

/** A DOCTYPE with an external entity put into `source`'s word/document.xml (XXE). */
export function xxeDocx(source: string, file: string): string {
  const xml = new TextDecoder().decode(unzipSync(readFileSync(source))['word/document.xml']);
  const hostile = xml.replace(
    /<w:document/,
    '<!DOCTYPE w:document [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><w:document',
  );
  return withPart(source, file, 'word/document.xml', hostile.replace('Quarterly Field Report', '&xxe;'));
}
