/**
 * V8's compiled code of the modules a thread loads, kept on disk between runs (Node ≥ 22.1,
 * `module.enableCompileCache`). pdf.js alone is 1.9 MB of JavaScript that every converting thread
 * parses again at start: with the cache, a one-page `folio convert` starts ~30 ms sooner on
 * Node 24 (issue 22, start-up; bench/startup.ts measures it).
 *
 * The cache lives in Folio's private cache folder (0700, checked by `ensurePrivateDir`): code
 * read back from a folder another user could write into would be code they chose. Node checks
 * each entry against its source and V8 version and ignores stale ones. `NODE_COMPILE_CACHE`
 * (a user's own folder) and `NODE_DISABLE_COMPILE_CACHE` keep their meaning. On Node 20, which
 * has no such cache, nothing happens.
 */
import { join } from 'node:path';
import { ensurePrivateDir, userCacheRoot } from './cache';

type ModuleWithCache = { enableCompileCache?: (dir?: string) => unknown };

let enabled = false;

/** Once per thread, before the modules worth caching (pdf.js, KaTeX) are loaded. */
export function enableCompileCache(env: NodeJS.ProcessEnv = process.env): void {
  if (enabled) return;
  enabled = true;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require('node:module') as ModuleWithCache;
  if (typeof mod.enableCompileCache !== 'function' || env.NODE_DISABLE_COMPILE_CACHE) return;
  try {
    if (env.NODE_COMPILE_CACHE) {
      mod.enableCompileCache(env.NODE_COMPILE_CACHE);
      return;
    }
    const dir = join(userCacheRoot(env), 'v8');
    ensurePrivateDir(dir);
    mod.enableCompileCache(dir);
  } catch {
    // A cache is only a speed-up: a folder that cannot be made (read-only home) costs nothing else.
  }
}
