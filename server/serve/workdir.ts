/**
 * The service's one work folder: uploads and results live under it with generated names (never
 * the client's file name), and nothing is written or removed outside it.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join, relative, resolve, isAbsolute } from 'node:path';

export class WorkDir {
  readonly root: string;
  readonly uploads: string;
  readonly results: string;

  constructor(root: string) {
    this.root = resolve(root);
    this.uploads = join(this.root, 'uploads');
    this.results = join(this.root, 'results');
    mkdirSync(this.uploads, { recursive: true });
    mkdirSync(this.results, { recursive: true });
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
}
