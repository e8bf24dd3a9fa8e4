#!/usr/bin/env node
/**
 * dist/cli.js, the `folio` command: a launcher kept small so that `folio convert` can start its
 * first page worker before anything else is loaded (server/worker/prestart.ts): the worker boots
 * while this thread loads dist/cli-main.js (server/cli/main.ts, the command line itself) and reads
 * the arguments. Other commands, `--queue` conversions and help start none.
 */
import { join } from 'node:path';
import { prestartPageWorker } from '../worker/prestart';
import { enableCompileCache } from '../util/compileCache';

const [command, ...rest] = process.argv.slice(2);
if (
  command === 'convert' &&
  !rest.some((a) => a === '--queue' || a.startsWith('--queue=') || a === '--help' || a === '-h')
)
  prestartPageWorker(join(__dirname, 'pageWorker.js'));

// Before cli-main.js is read, so that its compiled code is cached as well (Node ≥ 22).
enableCompileCache();
// eslint-disable-next-line @typescript-eslint/no-require-imports
require(join(__dirname, 'cli-main.js'));
