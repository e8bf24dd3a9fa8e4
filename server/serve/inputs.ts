/**
 * What a request brings to convert, made ready for a runner: the bytes in the work folder under
 * a generated name (mode 0600), their kind sniffed from the content (never the name), a PNG,
 * JPEG or TIFF scan turned into an image-only PDF as the CLI does (server/convert/imageInput.ts),
 * and docling-core's `binary_hash` of what the client sent. A refused input is removed at once.
 * A PDF named by local path (--allow-local) is read in place, never removed (localInput).
 */
import {
  closeSync,
  openSync,
  readFileSync,
  readSync,
  realpathSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, isAbsolute, relative, resolve } from 'node:path';
import { binaryHash } from '../export';
import { pdfForInput } from '../convert/imageInput';
import { HttpError } from './httpError';
import type { WorkDir } from './workdir';
import { structuredFormatOf } from '../convert/structuredInput';
import type { StructuredFormat } from '../office/types';

/** docling-serve's mimetypes of the structured formats. */
const STRUCTURED_MIME: Record<StructuredFormat, string> = {
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  html: 'text/html',
  md: 'text/markdown',
  csv: 'text/csv',
};

/**
 * A document born structured, from the client's file name and checked against the content: an
 * Office format must be a zip or an OLE compound file (an encrypted one, refused by its reader
 * with a clear message), a text format must not be binary. Undefined when it is neither.
 */
function sniffStructured(name: string, head: Buffer): StructuredFormat | undefined {
  const byName = structuredFormatOf(name);
  const zip = head[0] === 0x50 && head[1] === 0x4b;
  const cfb = head.subarray(0, 4).equals(Buffer.from([0xd0, 0xcf, 0x11, 0xe0]));
  if (byName === 'docx' || byName === 'pptx' || byName === 'xlsx') return zip || cfb ? byName : undefined;
  const text = !head.includes(0);
  if (byName && text) return byName;
  // No telling name: an HTML page says so in its first bytes.
  if (!byName && text && /^\s*(<!doctype html|<html)/i.test(head.toString('utf8'))) return 'html';
  return undefined;
}

export interface StoredInput {
  path: string;
  /** The client's file name (checked: no path separators). */
  name: string;
  /** A PDF, a scan made a PDF, or a document born structured (docling-serve's `from_formats` names). */
  kind: 'pdf' | 'image' | StructuredFormat;
  mimetype: string;
  binaryHash: number;
  /** The service wrote it (removed after conversion); false for a local file read by path. */
  owned: boolean;
}

type Sniffed =
  { kind: 'pdf'; mimetype: 'application/pdf'; ext: '.pdf' } | { kind: 'image'; mimetype: string; ext: string };

function headOf(path: string): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(1024);
    return buf.subarray(0, readSync(fd, buf, 0, 1024, 0));
  } finally {
    closeSync(fd);
  }
}

/** The content's type from its first bytes: PDF (`%PDF-` in the first KiB), PNG, JPEG or TIFF. */
export function sniff(path: string): Sniffed | undefined {
  const fd = openSync(path, 'r');
  let head: Buffer;
  try {
    const buf = Buffer.alloc(1024);
    head = buf.subarray(0, readSync(fd, buf, 0, 1024, 0));
  } finally {
    closeSync(fd);
  }
  if (head.includes('%PDF-')) return { kind: 'pdf', mimetype: 'application/pdf', ext: '.pdf' };
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return { kind: 'image', mimetype: 'image/png', ext: '.png' };
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff)
    return { kind: 'image', mimetype: 'image/jpeg', ext: '.jpg' };
  const t = head.subarray(0, 4).toString('latin1');
  if (t === 'II*\0' || t === 'MM\0*') return { kind: 'image', mimetype: 'image/tiff', ext: '.tif' };
  return undefined;
}

/** The longest file name, in UTF-8 bytes, as the queue's schema and file systems count it. */
export const MAX_NAME_BYTES = 255;

/**
 * A file name as a client may give it: no path, no control or format characters (bidi
 * overrides, zero-width; the queue's schema refuses them too, and they would reach zip entry
 * names), at most 255 bytes of UTF-8 — bytes, as the queue's schema and file systems count, not
 * characters: 204 × `é` passed here and failed in the queue with a 500 (security round 4, N5).
 */
export function checkName(name: string): string {
  const bytes = Buffer.byteLength(name);
  if (bytes > MAX_NAME_BYTES)
    throw new HttpError(
      400,
      'bad_filename',
      `file name "${name.slice(0, 100)}…" is ${bytes} bytes long (UTF-8); this service takes at most ${MAX_NAME_BYTES}: rename the file`,
    );
  if (!name || /[\\/]/.test(name) || name === '.' || name === '..' || /\p{C}/u.test(name)) {
    throw new HttpError(
      400,
      'bad_filename',
      `file name ${JSON.stringify(name.slice(0, 100))} is not accepted: give a plain name without path separators or control characters`,
    );
  }
  return name;
}

/**
 * Checks the stored bytes at `path` and makes them convertible. `fromFormats` is docling-serve's
 * `from_formats` (the input kinds the client accepts). Throws an HttpError naming the file.
 */
export async function readyInput(
  work: WorkDir,
  path: string,
  name: string,
  owned: boolean,
  fromFormats?: string[],
): Promise<StoredInput> {
  const fail = (status: number, code: string, message: string) => {
    if (owned) work.remove(path);
    return new HttpError(status, code, message);
  };
  const size = statSync(path).size;
  if (size === 0) throw fail(400, 'empty_file', `${name} is empty (0 bytes): it is not a PDF`);
  const kind = sniff(path);
  const structured = kind ? undefined : sniffStructured(name, headOf(path));
  if (structured) {
    if (fromFormats && !fromFormats.includes(structured))
      throw fail(
        415,
        'format_not_requested',
        `${name} is a ${structured} document, and from_formats (${fromFormats.join(', ')}) does not include "${structured}"`,
      );
    if (!owned) throw fail(415, 'not_a_pdf', `${name}: local paths must be PDFs`);
    // The reader is chosen by extension (server/office): the stored file takes the format's.
    const typed = path.replace(/\.pdf$/, '') + '.' + structured;
    renameSync(path, typed);
    return {
      path: typed,
      name,
      kind: structured,
      mimetype: STRUCTURED_MIME[structured],
      binaryHash: binaryHash(typed),
      owned,
    };
  }
  if (!kind)
    throw fail(
      415,
      'not_a_pdf',
      `${name} is not a PDF (no %PDF- header), a PNG, JPEG or TIFF image, nor a DOCX, PPTX, XLSX, HTML, Markdown or CSV document (by its name and content); Folio converts those`,
    );
  if (fromFormats && !fromFormats.includes(kind.kind))
    throw fail(
      415,
      'format_not_requested',
      `${name} is ${kind.kind === 'pdf' ? 'a PDF' : 'an image'}, and from_formats (${fromFormats.join(', ')}) does not include "${kind.kind}"`,
    );
  const hash = binaryHash(path);
  if (kind.kind === 'pdf') return { path, name, kind: 'pdf', mimetype: kind.mimetype, binaryHash: hash, owned };
  if (!owned) throw fail(415, 'not_a_pdf', `${name}: local paths must be PDFs`);
  // The image under its own extension (imageInput picks the decoder by it), then its PDF in its place.
  const image = path.replace(/\.pdf$/, '') + kind.ext;
  renameSync(path, image);
  let pdf: { path: string; cleanup: () => void };
  try {
    pdf = await pdfForInput(image);
  } catch (e) {
    work.remove(image);
    throw new HttpError(422, 'bad_image', `${name}: ${(e as Error).message}`);
  }
  try {
    writeFileSync(path, readFileSync(pdf.path), { flag: 'wx', mode: 0o600 });
  } finally {
    pdf.cleanup();
    work.remove(image);
  }
  return { path, name, kind: 'image', mimetype: kind.mimetype, binaryHash: hash, owned };
}

/** `p` lies strictly inside `root` (both resolved). */
function within(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/**
 * A PDF by local path (--allow-local: `allowLocalRoot`). Every refusal about where the path
 * leads — outside the folder, through a link out of it, inside the service's own work folder,
 * missing, not a file — is the same 404 with the same words, so the answer never tells whether a
 * path exists (issue 21 item 9). The file is the user's: it is read, never removed.
 */
export async function localInput(
  work: WorkDir,
  allowLocalRoot: string | undefined,
  given: string,
  fromFormats?: string[],
): Promise<StoredInput> {
  if (!allowLocalRoot)
    throw new HttpError(
      403,
      'local_paths_disabled',
      'this service does not read local paths: upload the file to /v1/convert/file, or start it with --allow-local <dir>',
    );
  const notHere = () =>
    new HttpError(404, 'not_found', `${given.slice(0, 300)} is not a file inside the folder this service may read`);
  const root = resolve(allowLocalRoot);
  const lexical = resolve(root, given);
  // Refused before the file system is asked, so a path outside costs the same as any other miss.
  if (!within(root, lexical)) throw notHere();
  let real: string;
  let realRoot: string;
  try {
    real = realpathSync(lexical);
    realRoot = realpathSync(root);
  } catch {
    throw notHere();
  }
  // Inside the work folder lie other clients' uploads and results: never readable by path.
  const realWork = realpathSync(work.root);
  if (!within(realRoot, real) || real === realWork || within(realWork, real)) throw notHere();
  if (!statSync(real).isFile()) throw notHere();
  return readyInput(work, real, basename(real), false, fromFormats);
}
