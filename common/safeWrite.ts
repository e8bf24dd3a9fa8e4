/**
 * The one way Folio writes a file (Markdown, sidecar, picture crops, page-image cache, CLI
 * outputs). Folders Folio writes into may come from an untrusted repository, which can ship
 * symbolic links where Folio's outputs go (`doc.md → ~/.bashrc`, `doc.assets → /etc`). So:
 *
 * - the target's name is one plain path component; when a `root` is given, every folder below
 *   the root down to the target's is a real folder (not a link) inside it;
 * - an existing target that is a link or not a regular file is refused, never followed;
 * - bytes go to a new temporary file with a short random name in the same folder (opened with
 *   O_CREAT|O_EXCL|O_NOFOLLOW), then `rename` replaces the target's directory entry. A rename
 *   never writes through a link, and the short name keeps a 250-character output name clear of
 *   ENAMETOOLONG (`<name>.<pid>.tmp` was not).
 *
 * Node's `fs` only: the extension host imports it too (src/ may import server/util).
 */
import {
  constants,
  lstatSync,
  statSync,
  mkdirSync,
  openSync,
  closeSync,
  writeSync,
  renameSync,
  unlinkSync,
  linkSync,
  type Stats,
} from 'node:fs';
import { lstat, mkdir, open, rename, stat, unlink, link } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { sha256Hex } from './sha256';
import { basename, dirname, isAbsolute, relative, resolve, sep } from 'node:path';

/** A write refused because it would follow a link or leave its folder; the message names the path. */
export class UnsafeWriteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsafeWriteError';
  }
}

export interface SafeWriteOptions {
  /** Folders from here down to the target's folder must be real folders (created if missing). */
  root?: string;
  /** File mode of a new file (before umask). Default 0o666; the cache uses 0o600. */
  mode?: number;
  /** Mode of folders created. Default 0o777 (before umask); the cache uses 0o700. */
  dirMode?: number;
  /** Fail (code EEXIST) instead of replacing an existing file. */
  exclusive?: boolean;
}

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const TEMP_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW;

/** Longest file name (bytes) on the file systems Folio meets (ext4, APFS, NTFS). */
export const MAX_NAME_BYTES = 255;

/** True when `child` is `parent` or inside it, after normalizing both (no `..` escapes, no prefix tricks). */
export function isInside(parent: string, child: string): boolean {
  const rel = relative(resolve(parent), resolve(child));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && rel.split(sep)[0] !== '..');
}

/**
 * `stem + suffix`, shortened when longer than a file name may be: the stem is cut (on a
 * character boundary) and a short hash of the full stem keeps different long names apart.
 */
export function fitFileName(stem: string, suffix: string, maxBytes = MAX_NAME_BYTES): string {
  if (Buffer.byteLength(stem + suffix) <= maxBytes) return stem + suffix;
  const tag = '~' + sha256Hex(stem).slice(0, 8);
  const room = maxBytes - Buffer.byteLength(tag + suffix);
  let cut = '';
  for (const ch of stem) {
    if (Buffer.byteLength(cut + ch) > room) break;
    cut += ch;
  }
  return cut + tag + suffix;
}

function checkName(path: string): void {
  const name = basename(path);
  if (!name || name === '.' || name === '..' || name.includes('\0') || name !== path.slice(path.length - name.length)) {
    throw new UnsafeWriteError(`${path} is not a file name Folio can write.`);
  }
}

function describe(path: string, st: Stats): string | undefined {
  if (st.isSymbolicLink())
    return `${path} is a symbolic link; Folio does not write through links. Remove the link or choose another output.`;
  if (!st.isFile()) return `${path} exists and is not a regular file; Folio will not replace it.`;
  return undefined;
}

/**
 * The folders strictly below `root` down to `dir` (the root itself is the caller's choice and
 * may be reached through a link, e.g. a workspace opened as ~/proj → /data/proj).
 */
function folderChain(dir: string, root: string | undefined): { top: string; below: string[] } {
  const target = resolve(dir);
  if (root === undefined) return { top: target, below: [] };
  const top = resolve(root);
  if (!isInside(top, target)) throw new UnsafeWriteError(`${target} is outside ${top}; Folio writes only inside it.`);
  const below: string[] = [];
  for (let d = target; d !== top; d = dirname(d)) below.unshift(d);
  return { top, below };
}

function folderProblem(d: string, st: Stats): string | undefined {
  if (st.isSymbolicLink())
    return `${d} is a symbolic link; Folio does not write into linked folders. Remove the link or choose another output folder.`;
  if (!st.isDirectory()) return `${d} is not a folder.`;
  return undefined;
}

/**
 * Makes sure `dir` is a folder, creating missing ones. With `root`, every folder below the root
 * must be a real folder, not a link; without, `dir` is the caller's own choice of folder.
 */
export function ensureDirSync(dir: string, opts: Pick<SafeWriteOptions, 'root' | 'dirMode'> = {}): void {
  const { top, below } = folderChain(dir, opts.root);
  mkdirSync(top, { recursive: true, mode: opts.dirMode });
  if (!statSync(top).isDirectory()) throw new UnsafeWriteError(`${top} is not a folder.`);
  for (const d of below) {
    let st = lstatSync(d, { throwIfNoEntry: false });
    if (!st) {
      mkdirSync(d, { mode: opts.dirMode });
      st = lstatSync(d);
    }
    const problem = folderProblem(d, st);
    if (problem) throw new UnsafeWriteError(problem);
  }
}

export async function ensureDir(dir: string, opts: Pick<SafeWriteOptions, 'root' | 'dirMode'> = {}): Promise<void> {
  const { top, below } = folderChain(dir, opts.root);
  await mkdir(top, { recursive: true, mode: opts.dirMode });
  if (!(await stat(top)).isDirectory()) throw new UnsafeWriteError(`${top} is not a folder.`);
  for (const d of below) {
    let st = await lstat(d).catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? undefined : Promise.reject(e)));
    if (!st) {
      await mkdir(d, { mode: opts.dirMode }).catch((e: NodeJS.ErrnoException) =>
        e.code === 'EEXIST' ? undefined : Promise.reject(e),
      );
      st = await lstat(d);
    }
    const problem = folderProblem(d, st);
    if (problem) throw new UnsafeWriteError(problem);
  }
}

function tempPath(dir: string): string {
  return resolve(dir, `.folio-${randomBytes(6).toString('hex')}.tmp`);
}

function existsError(path: string): NodeJS.ErrnoException {
  const e: NodeJS.ErrnoException = new Error(`${path} already exists.`);
  e.code = 'EEXIST';
  return e;
}

/** Writes `data` to `path` without following links and without leaving its folder (see the file comment). */
export function safeWriteFileSync(path: string, data: string | Uint8Array, opts: SafeWriteOptions = {}): void {
  checkName(path);
  const dir = dirname(resolve(path));
  ensureDirSync(dir, opts);
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (st) {
    const problem = describe(path, st);
    if (problem) throw new UnsafeWriteError(problem);
    if (opts.exclusive) throw existsError(path);
  }
  const tmp = tempPath(dir);
  const fd = openSync(tmp, TEMP_FLAGS, opts.mode ?? 0o666);
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    for (let off = 0; off < bytes.byteLength;) off += writeSync(fd, bytes, off, bytes.byteLength - off);
    closeSync(fd);
    if (opts.exclusive) {
      linkSync(tmp, path); // fails with EEXIST if the name appeared meanwhile
      unlinkSync(tmp);
    } else renameSync(tmp, path);
  } catch (e) {
    try {
      closeSync(fd);
    } catch {
      /* already closed */
    }
    try {
      unlinkSync(tmp);
    } catch {
      /* already renamed or gone */
    }
    throw e;
  }
}

export async function safeWriteFile(
  path: string,
  data: string | Uint8Array,
  opts: SafeWriteOptions = {},
): Promise<void> {
  checkName(path);
  const dir = dirname(resolve(path));
  await ensureDir(dir, opts);
  const st = await lstat(path).catch((e: NodeJS.ErrnoException) =>
    e.code === 'ENOENT' ? undefined : Promise.reject(e),
  );
  if (st) {
    const problem = describe(path, st);
    if (problem) throw new UnsafeWriteError(problem);
    if (opts.exclusive) throw existsError(path);
  }
  const tmp = tempPath(dir);
  const fh = await open(tmp, TEMP_FLAGS, opts.mode ?? 0o666);
  try {
    await fh.writeFile(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    await fh.close();
    if (opts.exclusive) {
      await link(tmp, path);
      await unlink(tmp);
    } else await rename(tmp, path);
  } catch (e) {
    await fh.close().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
}
