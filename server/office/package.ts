/**
 * An Office file's parts (OOXML is a zip of XML parts), read through fflate, the zip library
 * Folio already ships for the service's results. A zip bomb is refused before anything is
 * inflated: the central directory's declared sizes are checked against the limits below, and
 * fflate inflates each part into a buffer of exactly its declared size, so a part that lies about
 * its size cannot grow past it. An encrypted Office file (ECMA-376 encryption wraps the zip in an
 * OLE compound file) or a legacy binary .doc/.xls/.ppt is named as such.
 */
import { unzipSync } from 'fflate';
import { basename } from 'node:path';
import { FolioErrorCodes } from '../../common/protocol';
import { FolioError } from '../errors';
import { parseXml, XmlRefused, kids, type XmlElement } from './xml';

export interface PackageLimits {
  /** Most parts in the zip. */
  maxEntries: number;
  /** Most bytes one part may inflate to. */
  maxEntryBytes: number;
  /** Most bytes all parts together may inflate to. */
  maxTotalBytes: number;
  /** Largest inflated/compressed ratio of a part over 1 MB (real XML compresses 5–30×). */
  maxRatio: number;
}

export const DEFAULT_PACKAGE_LIMITS: PackageLimits = {
  maxEntries: 10_000,
  maxEntryBytes: 256 * 1024 * 1024,
  maxTotalBytes: 1024 * 1024 * 1024,
  maxRatio: 200,
};

/** The first bytes of an OLE compound file (encrypted OOXML, or .doc/.xls/.ppt). */
const CFB_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

interface EntryInfo {
  size: number;
  originalSize: number;
}

export function isCompoundFile(bytes: Uint8Array): boolean {
  return bytes.length >= 8 && CFB_MAGIC.every((b, i) => bytes[i] === b);
}

export class OfficePackage {
  private readonly entries = new Map<string, EntryInfo>();
  private readonly cache = new Map<string, Uint8Array>();
  private readonly xmlCache = new Map<string, XmlElement | undefined>();

  /** Checks the container and the declared sizes; throws a FolioError naming `file`. */
  constructor(
    private readonly bytes: Uint8Array,
    readonly file: string,
    limits: PackageLimits = DEFAULT_PACKAGE_LIMITS,
  ) {
    const name = basename(file);
    if (isCompoundFile(bytes)) {
      const ascii = Buffer.from(bytes.subarray(0, Math.min(bytes.length, 1 << 20))).toString('latin1');
      const encrypted = /E\0n\0c\0r\0y\0p\0t\0i\0o\0n\0I\0n\0f\0o/.test(ascii) || ascii.includes('EncryptionInfo');
      throw new FolioError(
        FolioErrorCodes.InvalidParams,
        encrypted
          ? `${name} is an encrypted (password-protected) Office file: Folio cannot read encrypted documents. Save an unprotected copy and convert that.`
          : `${name} is a legacy binary Office file (OLE compound document), not OOXML: save it as .docx/.pptx/.xlsx and convert that.`,
      );
    }
    if (bytes.length < 4 || bytes[0] !== 0x50 || bytes[1] !== 0x4b) {
      throw new FolioError(
        FolioErrorCodes.InvalidPdf,
        `${name} is not an Office Open XML file (no zip container): it may be damaged or have the wrong extension.`,
      );
    }
    let total = 0;
    let count = 0;
    const tooLarge = (why: string) =>
      new FolioError(
        FolioErrorCodes.TooLarge,
        `${name} was refused before inflating: ${why} (a zip bomb, or a document past Folio's limits). Nothing was converted.`,
      );
    try {
      unzipSync(bytes, {
        filter: (f) => {
          if (++count > limits.maxEntries) throw tooLarge(`more than ${limits.maxEntries} parts`);
          if (f.originalSize > limits.maxEntryBytes)
            throw tooLarge(`part ${f.name} inflates to ${f.originalSize} bytes (limit ${limits.maxEntryBytes})`);
          if (f.originalSize > 1024 * 1024 && f.originalSize > limits.maxRatio * Math.max(1, f.size))
            throw tooLarge(
              `part ${f.name} inflates ${Math.round(f.originalSize / Math.max(1, f.size))}× (limit ${limits.maxRatio}×)`,
            );
          total += f.originalSize;
          if (total > limits.maxTotalBytes)
            throw tooLarge(`its parts inflate to more than ${limits.maxTotalBytes} bytes`);
          this.entries.set(f.name, { size: f.size, originalSize: f.originalSize });
          return false; // nothing is inflated on this pass
        },
      });
    } catch (e) {
      if (e instanceof FolioError) throw e;
      throw new FolioError(
        FolioErrorCodes.InvalidPdf,
        `${name} is not a readable zip (${(e as Error).message}): it may be damaged or truncated.`,
      );
    }
  }

  /** The parts inflated so far (a macro project, `vbaProject.bin`, never is: tests check it). */
  inflated(): string[] {
    return [...this.cache.keys()];
  }

  has(path: string): boolean {
    return this.entries.has(path);
  }

  names(): string[] {
    return [...this.entries.keys()];
  }

  /** A part's bytes (inflated once, into its declared size), or undefined when absent. */
  bytesOf(path: string): Uint8Array | undefined {
    if (!this.entries.has(path)) return undefined;
    const hit = this.cache.get(path);
    if (hit) return hit;
    let data: Uint8Array | undefined;
    try {
      data = unzipSync(this.bytes, { filter: (f) => f.name === path })[path];
    } catch (e) {
      throw new FolioError(
        FolioErrorCodes.InvalidPdf,
        `${basename(this.file)}: part ${path} cannot be inflated (${(e as Error).message}): the file is damaged.`,
      );
    }
    if (data) this.cache.set(path, data);
    return data;
  }

  /** A part as an XML element tree; hostile or broken XML is a FolioError naming the file and part. */
  xml(path: string): XmlElement | undefined {
    if (this.xmlCache.has(path)) return this.xmlCache.get(path);
    const el = this.parse(path);
    this.xmlCache.set(path, el);
    return el;
  }

  private parse(path: string): XmlElement | undefined {
    const data = this.bytesOf(path);
    if (!data) return undefined;
    try {
      return parseXml(new TextDecoder('utf-8').decode(data));
    } catch (e) {
      const why = e instanceof XmlRefused ? e.message : (e as Error).message;
      throw new FolioError(FolioErrorCodes.InvalidPdf, `${basename(this.file)}: part ${path} was refused: ${why}.`);
    }
  }

  /** A part's relationships (`word/_rels/document.xml.rels`): id → target path (resolved) and mode. */
  rels(part: string): Map<string, Relationship> {
    const slash = part.lastIndexOf('/');
    const dir = part.slice(0, slash + 1);
    const relsPath = `${dir}_rels/${part.slice(slash + 1)}.rels`;
    const out = new Map<string, Relationship>();
    const root = this.xml(relsPath);
    for (const r of kids(root, 'rel:Relationship')) {
      const id = r.attrs.Id;
      const target = r.attrs.Target ?? '';
      const external = r.attrs.TargetMode === 'External';
      out.set(id, {
        type: (r.attrs.Type ?? '').replace(/^.*\//, ''),
        target: external ? target : resolvePart(dir, target),
        external,
      });
    }
    return out;
  }
}

export interface Relationship {
  /** The last segment of the relationship type (`image`, `hyperlink`, `slide`, `notesSlide`, …). */
  type: string;
  /** For an internal part, its path in the zip; for an external one, the target as written. */
  target: string;
  external: boolean;
}

/** `dir` + a relative target, with `..` and `/` handled as OPC resolves them. */
export function resolvePart(dir: string, target: string): string {
  const parts = (target.startsWith('/') ? target.slice(1) : dir + target).split('/');
  const out: string[] = [];
  for (const p of parts) {
    if (p === '..') out.pop();
    else if (p !== '.' && p !== '') out.push(p);
  }
  return out.join('/');
}
