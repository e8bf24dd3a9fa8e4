/**
 * The service's one work folder: uploads and results live under it with generated names (never
 * the client's file name), and nothing is written or removed outside it.
 *
 * It is private: the default is a fresh folder made by `mkdtemp` (mode 0700, a name nobody can
 * guess in advance) and removed when the service stops; a folder given with `--work-dir` must be
 * a real folder (not a link) owned by this user, and is made 0700. Files in it are 0600. A shared
 * temporary folder used under a fixed name let another local user read the uploads or plant a
 * link there before the service started (issue 21 item 6).
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, isAbsolute } from 'node:path';
import { FolioErrorCodes } from '../../common/protocol';
import { FolioError } from '../errors';

/** A work folder refused: kind `input` (the operator gives another with --work-dir), exit code 2. */
export class WorkDirError extends FolioError {
  constructor(message: string) {
    super(FolioErrorCodes.InvalidParams, message);
  }
}

/** Creates `dir` 0700 if missing; refuses a link, a non-folder or another user's folder; removes group/other permissions. */
function ensurePrivate(dir: string): void {
  const existed = lstatSync(dir, { throwIfNoEntry: false });
  if (!existed) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (st.isSymbolicLink())
    throw new WorkDirError(`work folder ${dir} is a symbolic link: give a real folder with --work-dir`);
  if (!st.isDirectory()) throw new WorkDirError(`work folder ${dir} is not a folder`);
  if (process.platform === 'win32') return;
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid)
    throw new WorkDirError(
      `work folder ${dir} belongs to another user (uid ${st.uid}): give a folder of your own with --work-dir`,
    );
  if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

export class WorkDir {
  readonly root: string;
  readonly uploads: string;
  readonly results: string;
  /** True when the service made the folder itself (and removes it on close). */
  readonly temporary: boolean;

  constructor(root: string, temporary = false) {
    this.root = resolve(root);
    this.temporary = temporary;
    ensurePrivate(this.root);
    this.uploads = join(this.root, 'uploads');
    this.results = join(this.root, 'results');
    ensurePrivate(this.uploads);
    ensurePrivate(this.results);
  }

  /** The default: a new private folder under the system's temporary folder. */
  static fresh(parent = tmpdir()): WorkDir {
    return new WorkDir(mkdtempSync(join(parent, 'folio-serve-')), true);
  }

  newUpload(): string {
    return join(this.uploads, `${randomUUID()}.pdf`);
  }

  resultDir(id: string): string {
    return join(this.results, id);
  }

  inside(p: string): boolean {
    const r = relative(this.root, resolve(p));
    return r !== '' && !r.startsWith('..') && !isAbsolute(r);
  }

  /** Removes a file or folder, only if it lies inside the work folder. */
  remove(p: string): void {
    if (this.inside(p)) rmSync(p, { recursive: true, force: true });
  }

  /** Makes everything under `dir` (inside the work folder) owner-only: files 0600, folders 0700. */
  seal(dir: string): void {
    if (!this.inside(dir) || process.platform === 'win32') return;
    const walk = (d: string): void => {
      let names: string[];
      try {
        names = readdirSync(d);
      } catch {
        return;
      }
      for (const n of names) {
        const p = join(d, n);
        const st = lstatSync(p, { throwIfNoEntry: false });
        if (!st || st.isSymbolicLink()) continue;
        if (st.isDirectory()) {
          chmodSync(p, 0o700);
          walk(p);
        } else if (st.isFile()) chmodSync(p, 0o600);
      }
    };
    walk(dir);
  }

  /** Removes the folder itself when the service made it. */
  dispose(): void {
    if (this.temporary) rmSync(this.root, { recursive: true, force: true });
  }
}
