/**
 * Cuts every page the real-world set names into one-page PDFs, without converting anything:
 *
 *   node esbuild.mjs --only realworld && node out/scripts/eval/realworld/pages.main.js [--out dir]
 *
 * Shared-corpus pages come from FOLIO_CORPUS (else ../shared/corpus); Debian pages from the
 * installed packages, each file checked against its SHA-256 in eval/realworld/debian.tsv. A
 * missing package or a changed file stops with a message naming the package to install.
 */
import { join, resolve } from 'node:path';
import { corpusRoot } from '../corpus';
import { repoRoot } from '../repo';
import { requireMeasured } from '../report/nothingMeasured';
import { materializePages } from './pages';
import { readTests, setDir, TESTS_FILE } from './set';

function main(): number {
  const repo = repoRoot();
  const i = process.argv.indexOf('--out');
  const out = resolve(i >= 0 ? process.argv[i + 1] : join(repo, 'eval', 'out', 'realworld', 'pages'));
  const tests = readTests(join(setDir(repo), TESTS_FILE));
  requireMeasured(tests.length, 'the real-world set', `No tests in ${join(setDir(repo), TESTS_FILE)}.`);
  const pages = materializePages(tests, out, corpusRoot(repo), setDir(repo));
  console.log(`realworld: ${pages.size} pages of ${tests.length} tests in ${out}`);
  return 0;
}

try {
  process.exitCode = main();
} catch (e) {
  console.error(`realworld pages: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 2;
}
