/**
 * dist/pageWorker.js, the entry of every page worker thread: it turns on Node's compile cache
 * (server/util/compileCache.ts) and then loads the worker itself (server/worker/pageWorker.ts →
 * dist/pageWorker-main.js), so that bundle's compiled code is cached too, not only what it loads:
 * a worker is up ~5 ms sooner on Node ≥ 22 (issue 22, start-up).
 */
import { join } from 'node:path';
import { enableCompileCache } from '../util/compileCache';

enableCompileCache();
// eslint-disable-next-line @typescript-eslint/no-require-imports
require(join(__dirname, 'pageWorker-main.js'));
