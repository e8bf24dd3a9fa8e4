/**
 * Cuts every page the real-world set names into one-page PDFs, without converting anything:
 *
 *   node esbuild.mjs --only realworld && node out/scripts/eval/realworld/pages.main.js [--out dir] [--with-sealed]
 *
 * Only the working part's pages unless `--with-sealed` (eval/realworld/sealed.ts): what is cut here
 * is read by people and by the snapshot's outputs, and the sealed part's outputs stay unread.
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
import { inPart } from './sealed';
import { readTests, setDir, TESTS_FILE } from './set';

function main(): number {
  const repo = repoRoot();
  const i = process.argv.indexOf('--out');
  const out = resolve(i >= 0 ? process.argv[i + 1] : join(repo, 'eval', 'out', 'realworld', 'pages'));
  const all = readTests(join(setDir(repo), TESTS_FILE));
  const tests = process.argv.includes('--with-sealed') ? all : inPart(all, 'working');
  requireMeasured(tests.length, 'the real-world set', `No tests in ${join(setDir(repo), TESTS_FILE)}.`);
  const pages = materializePages(tests, out, corpusRoot(repo), setDir(repo));
  console.log(
    `realworld: ${pages.size} pages of ${tests.length} tests in ${out}${tests.length < all.length ? ' (working part)' : ''}`,
  );
  return 0;
}

try {
  process.exitCode = main();
} catch (e) {
  console.error(`realworld pages: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 2;
}
