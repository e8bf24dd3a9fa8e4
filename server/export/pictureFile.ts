/**
 * The one way an export reads a picture file (to embed it, or to read its pixel size for the
 * DoclingDocument). The path comes from the page's regions (data the conversion wrote, never
 * re-read from Markdown text), and may still have travelled through a client or a queue, so
 * every read is checked (issue 21 items 2 and 3):
 * - a plain relative path: no absolute path, no URI scheme, no `..` segment;
 * - its real path (links resolved) inside the real path of the pictures folder;
 * - a regular file (never a device such as /dev/zero, a FIFO or a folder), opened without
 *   following a final link, of at most `MAX_PICTURE_BYTES`.
 * A refused file is an Error saying why; the caller turns it into a page warning.
 */
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';

/**
 * A picture crop is rendered within the 25-megapixel cap (docs/limits.md): 75 MB of RGB before
 * PNG compression, so a real crop stays below this.
 */
export const MAX_PICTURE_BYTES = 80 * 1024 * 1024;

export interface PictureFolders {
  /** Folder the relative picture paths are relative to (the Markdown's folder). */
  baseDir: string;
  /** Folder every picture file must really be inside (the assets folder); default `baseDir`. */
  root?: string;
}

/** Why a path from the pages is not a plain relative path inside the folder, or undefined. */
export function picturePathProblem(path: string): string | undefined {
  if (path.length === 0 || path.length > 4096 || path.includes('\0')) return 'not a file path';
  if (isAbsolute(path) || /^[a-z][a-z0-9+.-]*:/i.test(path) || /^[\\/]/.test(path)) return 'not a relative path';
  if (path.split(/[\\/]/).includes('..')) return 'has a ".." segment';
  return undefined;
}

function inside(root: string, file: string): boolean {
  const rel = relative(root, file);
  return rel.length > 0 && !rel.startsWith('..' + sep) && rel !== '..' && !isAbsolute(rel);
}

/** Opens the picture after every check; the caller closes the descriptor. Returns it with the file's size. */
function openPicture(path: string, folders: PictureFolders, maxBytes: number): { fd: number; size: number } {
  const problem = picturePathProblem(path);
  if (problem) throw new Error(`${problem}`);
  const full = join(folders.baseDir, path);
  let real: string;
  let root: string;
  try {
    real = realpathSync(full);
    root = realpathSync(folders.root ?? folders.baseDir);
  } catch (e) {
    throw new Error(`not found (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  if (!inside(root, real)) throw new Error('outside the pictures folder');
  // O_NOFOLLOW: the last component cannot have been swapped for a link since realpath.
  const fd = openSync(real, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new Error('not a regular file');
    if (st.size > maxBytes) throw new Error(`larger than ${Math.round(maxBytes / 1024 / 1024)} MB`);
    return { fd, size: st.size };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

/** The picture's bytes (at most `maxBytes`, read no further than the size checked). */
export function readPictureFile(path: string, folders: PictureFolders, maxBytes = MAX_PICTURE_BYTES): Buffer {
  const { fd, size } = openPicture(path, folders, maxBytes);
  try {
    const buf = Buffer.alloc(size);
    let got = 0;
    while (got < size) {
      const n = readSync(fd, buf, got, size - got, got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

/** The first `n` bytes of the picture (a header), under the same checks. */
export function readPictureHeader(path: string, folders: PictureFolders, n = 32): Buffer {
  const { fd, size } = openPicture(path, folders, MAX_PICTURE_BYTES);
  try {
    const buf = Buffer.alloc(Math.min(n, size));
    const got = buf.length > 0 ? readSync(fd, buf, 0, buf.length, 0) : 0;
    return buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}
