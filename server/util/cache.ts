/**
 * Folio's page-image cache: a per-user folder only its owner can read (0700), entries checked
 * before they are trusted, and a size cap enforced by evicting the oldest entries.
 *
 * The CLI used to share `/tmp/folio-cache` (0755, predictable names) between users, so another
 * user could read rendered pages or plant a file Folio would serve as a page image.
 */
import { chmodSync, closeSync, lstatSync, openSync, readdirSync, readSync, unlinkSync, constants } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { ensureDirSync, safeWriteFile, UnsafeWriteError } from '../../common/safeWrite';

/** Default size cap of a page-image cache folder; `FOLIO_CACHE_MAX_MB` changes it. */
export const DEFAULT_CACHE_MAX_BYTES = 1024 * 1024 * 1024;

export function cacheMaxBytes(env: NodeJS.ProcessEnv = process.env): number {
  const mb = Number(env.FOLIO_CACHE_MAX_MB);
  return Number.isFinite(mb) && mb > 0 ? Math.floor(mb * 1024 * 1024) : DEFAULT_CACHE_MAX_BYTES;
}

/** Folio's per-user cache root: `FOLIO_CACHE_DIR`, else the platform's per-user cache folder. */
export function userCacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.FOLIO_CACHE_DIR) return env.FOLIO_CACHE_DIR;
  if (process.platform === 'win32')
    return join(env.LOCALAPPDATA || join(homedir(), 'AppData', 'Local'), 'folio', 'cache');
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Caches', 'folio');
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'folio');
}

/** The CLI's default page-image cache. */
export function defaultPageCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(userCacheRoot(env), 'pages');
}

/**
 * Creates `dir` (mode 0700) or checks an existing one: a real folder, not a link, owned by this
 * user; group/other permissions are removed. Throws a message naming the folder otherwise.
 */
export function ensurePrivateDir(dir: string): void {
  // A folder of Folio's cache root: the root is checked the same way first. Whoever controls the
  // root can replace any folder in it (security round 3, F9).
  const root = userCacheRoot();
  if (resolve(dirname(dir)) === resolve(root) && resolve(dir) !== resolve(root)) ensurePrivateDir(root);
  ensureDirSync(dir, { dirMode: 0o700 });
  const st = lstatSync(dir);
  if (st.isSymbolicLink())
    throw new UnsafeWriteError(`cache folder ${dir} is a symbolic link; Folio does not write into linked folders.`);
  if (process.platform === 'win32') return;
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) {
    throw new UnsafeWriteError(
      `cache folder ${dir} belongs to another user; set FOLIO_CACHE_DIR to a folder of your own.`,
    );
  }
  if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

/**
 * Whether `dir` may be trusted for reading what Folio wrote there, without creating or changing
 * anything: a real folder (not a link), owned by this user, that no other user can write to.
 */
export function isPrivateDir(dir: string): boolean {
  const st = lstatSync(dir, { throwIfNoEntry: false });
  if (!st || !st.isDirectory()) return false;
  if (process.platform === 'win32') return true;
  const uid = process.getuid?.();
  return (uid === undefined || st.uid === uid) && (st.mode & 0o022) === 0;
}

/**
 * Reads a small file Folio wrote in one of its cache root's private folders (`sub`), or undefined
 * when the root, the folder or the file could have been written by someone else: a link, another
 * user's, writable by others (security round 3, F9).
 */
export function readPrivateCacheFile(
  sub: string,
  name: string,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const root = userCacheRoot(env);
  const dir = join(root, sub);
  if (!isPrivateDir(root) || !isPrivateDir(dir)) return undefined;
  const path = join(dir, name);
  const st = lstatSync(path, { throwIfNoEntry: false });
  const uid = process.platform === 'win32' ? undefined : process.getuid?.();
  if (!st || !st.isFile() || st.size > 4096 || (uid !== undefined && st.uid !== uid)) return undefined;
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch {
    return undefined;
  }
  try {
    const buf = Buffer.alloc(st.size);
    const n = readSync(fd, buf, 0, st.size, 0);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** Page-image cache entries: `<16 hex file key>-p<page>-s<scale>.png` (server/pipeline). */
const ENTRY = /^[0-9a-f]{16}-p\d+-s[\d.]+\.png$/;
/** Temporary files left by an interrupted write (common/safeWrite). */
const TEMP = /^\.folio-[0-9a-f]{12}\.tmp$/;

/**
 * Deletes the oldest cache entries (by modification time, i.e. when rendered) until the folder
 * holds at most 80 % of `maxBytes` once it is over `maxBytes`. Only Folio's own entry names are
 * ever deleted, so a wrong folder loses nothing else. Returns the bytes removed.
 */
export function evictCache(dir: string, maxBytes = cacheMaxBytes()): number {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  const entries: { path: string; size: number; mtime: number }[] = [];
  let total = 0;
  const now = Date.now();
  for (const name of names) {
    const isEntry = ENTRY.test(name);
    if (!isEntry && !TEMP.test(name)) continue;
    const path = join(dir, name);
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (!st || !st.isFile()) continue;
    if (!isEntry) {
      // A temp file older than an hour belongs to no running write.
      if (now - st.mtimeMs > 3_600_000) tryUnlink(path);
      continue;
    }
    entries.push({ path, size: st.size, mtime: st.mtimeMs });
    total += st.size;
  }
  if (total <= maxBytes) return 0;
  entries.sort((a, b) => a.mtime - b.mtime);
  let removed = 0;
  for (const e of entries) {
    if (total - removed <= maxBytes * 0.8) break;
    if (tryUnlink(e.path)) removed += e.size;
  }
  return removed;
}

function tryUnlink(path: string): boolean {
  try {
    unlinkSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Largest page image Folio renders (server/pdf/render caps): anything bigger is not ours. */
const MAX_SIDE = 16_384;

/**
 * Checks a cached page image before it is used: a regular file (not a link) that starts with a
 * PNG signature and an IHDR of a plausible size. Returns its width and height, or undefined
 * (then the page is rendered again and the entry replaced).
 */
export function readCachedPng(path: string): { width: number; height: number } | undefined {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st || !st.isFile() || st.size < 45) return undefined;
  const head = Buffer.alloc(24);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch {
    return undefined;
  }
  try {
    if (readSync(fd, head, 0, 24, 0) !== 24) return undefined;
  } finally {
    closeSync(fd);
  }
  const sig = head.subarray(0, 8).toString('hex');
  if (sig !== '89504e470d0a1a0a' || head.subarray(12, 16).toString('latin1') !== 'IHDR') return undefined;
  const width = head.readUInt32BE(16);
  const height = head.readUInt32BE(20);
  if (width < 1 || height < 1 || width > MAX_SIDE || height > MAX_SIDE) return undefined;
  return { width, height };
}

/**
 * Writes a cache entry (mode 0600) in the private folder. An entry that is not a regular file
 * (a planted link) is removed first: in our own folder, removing it loses nothing and
 * the write then never goes through it.
 */
export async function writeCacheEntry(dir: string, path: string, bytes: Uint8Array): Promise<void> {
  ensurePrivateDir(dir);
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (st && !st.isFile()) tryUnlink(path);
  await safeWriteFile(path, bytes, { mode: 0o600, root: dir });
}
