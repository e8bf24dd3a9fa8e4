/** Where the repository is, seen from a bundled script in out/scripts/** or a test in out/test/**. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export function repoRoot(from: string = __dirname): string {
  let dir = from;
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && JSON.parse(readFileSync(pkg, 'utf8')).name === 'folio') return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`no Folio package.json above ${from}`);
    dir = up;
  }
}
