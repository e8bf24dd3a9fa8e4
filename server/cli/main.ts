#!/usr/bin/env node
/**
 * The `folio` command line. It runs the same engine as the extension's backend (the worker
 * pool and the conversion orchestrator), in this process.
 *
 *   folio convert <file.pdf|dir>... [options]     see `folio convert --help`
 *   folio models pull|list|remove ...             model manager (VLM engine)
 */
import { readdirSync, statSync } from 'node:fs';
import { basename, dirname, extname, join, relative, resolve } from 'node:path';
import type { ConvertSummary, PageResult } from '../protocol';
import { PageWorkerPool } from '../worker/pool';
import { convertDocument } from '../convert/convertDocument';
import { disposeVlmEngines } from '../convert/vlmEngine';
import { CONVERT_USAGE, parseConvertArgs, UsageError, type ConvertArgs } from './args';
import { ProgressLine } from './progress';
import { overwriteProblem, planOutputs, pruneWriteRecords, writeOutput } from './outputs';
import { fitFileName } from '../util/safeWrite';
import { defaultPageCacheDir, evictCache } from '../util/cache';

const VERSION = '0.1.0';

/**
 * Expands folders into the PDFs they contain (recursively), keeping the order given. Each file
 * keeps the folder it was found from (`base`): outputs under `-o` keep the structure below it.
 */
export function expandInputs(inputs: string[]): { path: string; base: string }[] {
  const out: { path: string; base: string }[] = [];
  const walk = (dir: string, base: string) => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      const st = statSync(p, { throwIfNoEntry: false });
      if (!st) continue;
      if (st.isDirectory()) walk(p, base);
      else if (/\.pdf$/i.test(name)) out.push({ path: p, base });
    }
  };
  for (const input of inputs) {
    const p = resolve(input);
    const st = statSync(p, { throwIfNoEntry: false });
    if (st?.isDirectory()) walk(p, p);
    else out.push({ path: p, base: dirname(p) }); // missing files are reported by the conversion, with the others still converting
  }
  return out;
}

// `.folio-result.json`, not `.json`: a PDF often has other JSON beside it (docling's ground truth
// in the shared corpus does) that a conversion must not overwrite.
const EXT = { md: '.md', doctags: '.doctags.txt', json: '.folio-result.json' } as const;

function render(args: ConvertArgs, summary: ConvertSummary): string {
  if (args.format === 'doctags') return summary.doctags + '\n';
  if (args.format === 'json') return JSON.stringify(summary, null, 2) + '\n';
  return summary.markdown;
}

async function convertCommand(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(CONVERT_USAGE + '\n');
    return 0;
  }
  const args = parseConvertArgs(argv);
  const files = expandInputs(args.inputs);
  if (files.length === 0) throw new UsageError('no PDF found in the folders given');
  const many = files.length > 1 || (args.output?.endsWith('/') ?? false);
  const plans = planOutputs(files, EXT[args.format], args.output, many);
  const pool = new PageWorkerPool({ size: args.jobs });
  const abort = new AbortController();
  let interrupted = false;
  process.on('SIGINT', () => {
    // First Ctrl-C: stop and keep what is done; second: leave at once.
    if (interrupted) process.exit(130);
    interrupted = true;
    abort.abort();
  });
  const progress = new ProgressLine(process.stderr, !args.quiet && process.stderr.isTTY === true);
  let failures = 0;
  let next = 0;
  const worker = async () => {
    while (next < files.length && !abort.signal.aborted) {
      const plan = plans[next++];
      const { pdf, out } = plan;
      const label = relative(process.cwd(), pdf) || pdf;
      const started = Date.now();
      const pages: PageResult[] = [];
      try {
        const refused = args.force ? undefined : overwriteProblem(out);
        if (refused) throw new Error(refused);
        const summary = await convertDocument(
          pool,
          {
            uri: pdf,
            pages: args.pages,
            password: args.password,
            options: {
              engine: args.engine,
              renderImages: args.images,
              scale: args.scale,
              ocr: args.ocr,
              keepFurniture: args.keepFurniture,
              modelsDir: args.models,
              providers: args.providers,
              layoutPrior: args.layoutPrior,
              markdownDir: dirname(out),
              assetsDir: join(dirname(out), fitFileName(basename(out, extname(out)), '.assets')),
            },
          },
          {
            page: (p) => {
              if (args.format === 'json') pages.push(p);
            },
            progress: (done, total) => progress.update(label, done, total),
            log: (level, message) => {
              if (level !== 'info') progress.note(`folio: ${message}`);
            },
          },
          abort.signal,
        );
        if (summary.pagesDone.length === 0 && summary.pageErrors.length > 0) {
          throw new Error(`no page could be converted (${summary.pageErrors[0].message})`);
        }
        if (args.format === 'json') summary.pages = pages;
        // Checked again: the file may have appeared or changed while the PDF was converting.
        const late = args.force ? undefined : overwriteProblem(out);
        if (late) throw new Error(late);
        writeOutput(plan, render(args, summary));
        const secs = ((Date.now() - started) / 1000).toFixed(1);
        const extra = [
          summary.cancelled ? `cancelled after ${summary.pagesDone.length} of ${summary.pageCount} pages` : '',
          summary.pageErrors.length > 0 ? `${summary.pageErrors.length} page(s) failed` : '',
          summary.provider ? `provider ${summary.provider}` : '',
        ].filter(Boolean);
        progress.note(`${label} → ${out} (${summary.pagesDone.length} pages, ${secs} s${extra.length ? '; ' + extra.join('; ') : ''})`, process.stdout);
        if (summary.pageErrors.length > 0 || summary.cancelled) failures++;
      } catch (e) {
        failures++;
        const reason = (e instanceof Error ? e.message : String(e)).split('\n')[0];
        progress.note(`folio: ${label}: ${reason}`);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(args.jobs, files.length) }, worker));
  } finally {
    progress.done();
    await Promise.all([pool.dispose(), disposeVlmEngines()]);
    evictCache(defaultPageCacheDir());
    pruneWriteRecords();
  }
  if (interrupted) return 130;
  return failures > 0 ? 1 : 0;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'convert':
        return await convertCommand(rest);
      case 'models': {
        const { runModelsCommand } = await import('./models');
        return await runModelsCommand(rest);
      }
      case '--version':
      case '-v':
        process.stdout.write(`folio ${VERSION}\n`);
        return 0;
      case undefined:
      case '--help':
      case '-h':
      case 'help':
        process.stdout.write(`folio ${VERSION}: PDF to Markdown on your own machine\n\n${CONVERT_USAGE}\n\nusage: folio models pull|list|remove ...\n`);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command "${command}" (try folio --help)`);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`folio: ${e.message}\n`);
      return 2;
    }
    process.stderr.write(`folio: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
