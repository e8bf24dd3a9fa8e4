/**
 * The `folio` command line, bundled as dist/cli-main.js and loaded by dist/cli.js (server/cli/launch.ts).
 * It runs the same engine as the extension's backend (the worker pool and the conversion
 * orchestrator), in this process.
 *
 *   folio convert <file.pdf|dir>... [options]     see `folio convert --help`
 *   folio models pull|list|remove ...             model manager (VLM engine)
 *   folio serve [options]                          HTTP API (server/serve)
 *   folio worker --redis redis://…                 queue worker (server/queue)
 */
import { mkdtempSync, rmSync, lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ERROR_KIND_CODES, type ConvertSummary, type ErrorKind, type PageResult } from '../../common/protocol';
import { OUTPUT_FORMATS } from '../../common/requestModel';
import { needsPages, renderOutput } from '../export/output';
import { PageWorkerPool } from '../worker/pool';
import { convertDocument } from '../convert/convertDocument';
import { disposeVlmEngines } from '../convert/vlmEngine';
import { CONVERT_USAGE, parseConvertArgs, type ConvertArgs } from '../convertCommand/args';
import { wantsHelp } from '../flags/table';
import { ProgressLine } from '../convertCommand/progress';
import { overwriteProblem, planOutputs, pruneWriteRecords, writeOutput, type OutputPlan } from './outputs';
import { defaultPageCacheDir, evictCache } from '../util/cache';
import { engineOptions } from '../convertCommand/engineOptions';
import { exportProblem } from '../convertCommand/exportCheck';
import { linkedAssetsFolder } from '../convertCommand/pictures';
import { commandBundle } from './commandBundle';
import { EXIT_CODES } from '../exitCodes';
import { FolioError, kindOf, messageOf, nothingConverted, UsageError } from '../errors';
import { tmpdir } from 'node:os';
import { startupMark } from '../util/startupTrace';

const VERSION = '0.1.0';

/**
 * Expands folders into the PDFs they contain (recursively), keeping the order given. Each file
 * keeps the folder it was found from (`base`): outputs under `-o` keep the structure below it.
 * A folder is entered once (by its real path), so a link back up (`loop -> .`) is not followed
 * round; an entry that cannot be read (a link loop: ELOOP, a dangling link, no permission) is
 * skipped with a warning in `warnings`, and the other files still convert (issue 21 item 13).
 */
export function expandInputs(inputs: string[], warnings: string[] = []): { path: string; base: string }[] {
  const out: { path: string; base: string }[] = [];
  const seen = new Set<string>();
  const walk = (dir: string, base: string) => {
    let real: string;
    let names: string[];
    try {
      real = realpathSync(dir);
      names = readdirSync(dir).sort();
    } catch (e) {
      warnings.push(`${dir} was skipped: ${reason(e)}`);
      return;
    }
    if (seen.has(real)) {
      warnings.push(`${dir} was skipped: it is a link to ${real}, a folder already searched (a link loop?)`);
      return;
    }
    seen.add(real);
    for (const name of names) {
      const p = join(dir, name);
      let st;
      try {
        st = statSync(p, { throwIfNoEntry: false });
      } catch (e) {
        warnings.push(`${p} was skipped: ${reason(e)}`);
        continue;
      }
      if (!st) {
        if (lstatSync(p, { throwIfNoEntry: false })?.isSymbolicLink() && /\.pdf$/i.test(name))
          warnings.push(`${p} was skipped: a link to a file that does not exist`);
        continue;
      }
      if (st.isDirectory()) walk(p, base);
      else if (FOLDER_INPUT.test(name)) out.push({ path: p, base });
    }
  };
  for (const input of inputs) {
    const p = resolve(input);
    let st;
    try {
      st = statSync(p, { throwIfNoEntry: false });
    } catch (e) {
      warnings.push(`${p} was skipped: ${reason(e)}`);
      continue;
    }
    if (st?.isDirectory()) walk(p, p);
    else out.push({ path: p, base: dirname(p) }); // missing files are reported by the conversion, with the others still converting
  }
  return out;
}

/**
 * What a folder walk converts: PDFs and the Office and HTML documents (issue 41). Not `.md`: a
 * folder holds Folio's own Markdown outputs, and a second run must not convert them.
 */
const FOLDER_INPUT = /\.(pdf|docx|pptx|xlsx|html?)$/i;

function reason(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ELOOP') return 'a symbolic link loop (ELOOP)';
  if (code === 'EACCES' || code === 'EPERM') return `no permission to read it (${code})`;
  return (e as Error).message;
}

/** An output's text and, for Docling-shaped chunks, the DoclingDocument their `doc_items` refer to. */
interface Rendered {
  text: string;
  document?: string;
}

/** `picturesRoot`: the document's assets folder, the only place an export reads picture files from. */
function render(
  args: ConvertArgs,
  summary: ConvertSummary,
  pdf: string,
  picturesDir: string,
  picturesRoot?: string,
): Rendered {
  const out = renderOutput(
    {
      format: args.format,
      summary,
      pdfPath: pdf,
      pages: summary.pages ?? [],
      images: args.pictures,
      imagesBaseDir: picturesDir,
      picturesRoot,
      keepFurniture: args.keepFurniture,
      chunk: { maxSize: args.chunkSize, unit: args.chunkUnit },
      chunkSchema: args.chunkSchema,
    },
    () => commandBundle<typeof import('../export')>('export').renderExport,
  );
  return { text: out.text, document: out.document };
}

/**
 * Docling-shaped chunks refer to items of a DoclingDocument: it is written beside them as
 * `<name>.docling.json` (`x.chunks.jsonl` → `x.docling.json`), under the same overwrite rules.
 */
function documentPlan(plan: OutputPlan, args: ConvertArgs): OutputPlan | undefined {
  if (args.format !== 'chunks' || args.chunkSchema !== 'docling') return undefined;
  const out = plan.out.replace(/(\.chunks)?(\.[^./\\]*)?$/, '') + OUTPUT_FORMATS.docling.ext;
  return { ...plan, out };
}

function refuseOverwrite(plans: (OutputPlan | undefined)[], force: boolean): void {
  if (force) return;
  for (const p of plans) {
    const refused = p ? overwriteProblem(p.out) : undefined;
    if (refused) throw new Error(refused);
  }
}

function writeRendered(plan: OutputPlan, args: ConvertArgs, r: Rendered): void {
  const doc = documentPlan(plan, args);
  // The document first: chunks never point into a document that is not there.
  if (doc && r.document !== undefined) writeOutput(doc, r.document);
  writeOutput(plan, r.text);
}

/** The PDFs named (folders expanded), each with where its output goes; warnings on stderr. */
function plannedOutputs(args: ConvertArgs): OutputPlan[] {
  const walkWarnings: string[] = [];
  const files = expandInputs(args.inputs, walkWarnings);
  for (const w of walkWarnings) process.stderr.write(`folio: warning: ${w}\n`);
  if (files.length === 0) throw new UsageError('no PDF or Office/HTML document found in the folders given');
  const many = files.length > 1 || (args.output?.endsWith('/') ?? false);
  return planOutputs(files, OUTPUT_FORMATS[args.format].ext, args.output, many);
}

/** Flags that do not go with --queue: the workers refuse jobs that name places on their machine or the network (server/queue/schema.ts). */
function checkQueueArgs(args: ConvertArgs): void {
  if (!args.queue) return;
  if (args.models || args.vlmUrl)
    throw new UsageError(
      `${args.models ? '--models' : '--vlm-url'} is each worker's own setting with --queue: give it to \`folio worker\``,
    );
  if (args.images)
    throw new UsageError("--page-images renders into the converting machine's cache: it does not combine with --queue");
}

/** `folio convert --queue`: the queue writes the same outputs under the same rules (planOutputs, no overwrite without --force). */
function convertQueued(args: ConvertArgs & { queue: string }, plans: OutputPlan[]): Promise<number> {
  const { convertViaQueue } = commandBundle<typeof import('../queue/convertViaQueue')>('queue');
  const byPdf = new Map(plans.map((p) => [p.pdf, p]));
  const byOut = new Map(plans.map((p) => [p.out, p]));
  const documents = new Map<string, string | undefined>();
  return convertViaQueue(
    args,
    plans.map((p) => p.pdf),
    {
      outputPath: (pdf) => byPdf.get(pdf)!.out,
      render: (s, picturesDir, picturesRoot) => {
        const plan = byPdf.get(s.uri)!;
        const r = render(args, s, s.uri, picturesDir, picturesRoot);
        documents.set(plan.out, r.document);
        return r.text;
      },
      write: (out, text) => {
        const plan = byOut.get(out)!;
        refuseOverwrite([plan, documentPlan(plan, args)], args.force);
        writeRendered(plan, args, { text, document: documents.get(out) });
      },
    },
  );
}

/** What every file of an in-process run shares. */
interface Run {
  args: ConvertArgs;
  pool: PageWorkerPool;
  progress: ProgressLine;
  signal: AbortSignal;
  /** Raises the run's exit code to this failure's (EXIT_CODES). */
  failed: (kind: ErrorKind) => void;
}

/** Converts one file in this process and writes its output; a failure is reported on stderr and counted, not thrown. */
async function convertOne(run: Run, plan: OutputPlan): Promise<void> {
  const { args, progress } = run;
  const { pdf, out } = plan;
  const label = relative(process.cwd(), pdf) || pdf;
  const started = Date.now();
  const pages: PageResult[] = [];
  // Pictures: linked crops go to <name>.assets beside the output; embedded ones are read
  // from a temporary folder and removed; `none` saves no crops at all.
  const linkedAssets = join(dirname(out), linkedAssetsFolder(out));
  const embedDir = args.pictures === 'embed' ? mkdtempSync(join(tmpdir(), 'folio-pictures-')) : undefined;
  const picturesDir = embedDir ?? dirname(out);
  const keepPages = needsPages(args.format, args.pictures);
  try {
    refuseOverwrite([plan, documentPlan(plan, args)], args.force);
    const summary = await convertDocument(
      run.pool,
      {
        uri: pdf,
        pages: args.pages,
        password: args.password,
        limits: args.limits,
        options: {
          ...engineOptions(args),
          renderImages: args.images,
          ...(args.pictures === 'none' ? {} : { markdownDir: picturesDir, assetsDir: embedDir ?? linkedAssets }),
        },
      },
      {
        page: (p) => {
          if (keepPages) pages.push(p);
        },
        progress: (done, total) => progress.update(label, done, total),
        log: (level, message) => {
          if (level !== 'info' || args.verbose) progress.note(`folio: ${message}`);
        },
      },
      run.signal,
    );
    const none = nothingConverted(summary);
    if (none) throw new FolioError(ERROR_KIND_CODES[none.kind], none.message);
    if (keepPages) summary.pages = pages;
    // Checked again: the file may have appeared or changed while the PDF was converting.
    refuseOverwrite([plan, documentPlan(plan, args)], args.force);
    const rendered = render(args, summary, pdf, picturesDir, embedDir ?? linkedAssets);
    const empty = exportProblem(args.format, rendered.text, summary);
    if (empty) throw new Error(empty);
    writeRendered(plan, args, rendered);
    startupMark('cli:written');
    reportDone(run, label, out, summary, started);
  } catch (e) {
    run.failed(kindOf(e));
    progress.note(`folio: ${label}: ${messageOf(e).split('\n')[0]}`);
  } finally {
    if (embedDir) rmSync(embedDir, { recursive: true, force: true });
  }
}

/** The line on stdout for a converted file, and the run's exit code for its failed pages or a cancel. */
function reportDone(run: Run, label: string, out: string, summary: ConvertSummary, started: number): void {
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  const extra = [
    summary.cancelled ? `cancelled after ${summary.pagesDone.length} of ${summary.pageCount} pages` : '',
    summary.pageErrors.length > 0 ? `${summary.pageErrors.length} page(s) failed` : '',
    summary.provider ? `provider ${summary.provider}` : '',
  ].filter(Boolean);
  run.progress.note(
    `${label} → ${out} (${summary.pagesDone.length} pages, ${secs} s${extra.length ? '; ' + extra.join('; ') : ''})`,
    process.stdout,
  );
  if (summary.pageErrors.length > 0) run.failed(summary.pageErrors[0].kind);
  if (summary.cancelled) run.failed('cancelled');
}

/** `folio convert` in this process: `--jobs` files at once over one page-worker pool. */
async function convertHere(args: ConvertArgs, plans: OutputPlan[]): Promise<number> {
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
  /** The run's exit code so far: the highest of its failures' (EXIT_CODES). */
  let exitCode = 0;
  const run: Run = {
    args,
    pool,
    progress,
    signal: abort.signal,
    failed: (kind) => (exitCode = Math.max(exitCode, EXIT_CODES[kind])),
  };
  let next = 0;
  const worker = async () => {
    while (next < plans.length && !abort.signal.aborted) await convertOne(run, plans[next++]);
  };
  try {
    await Promise.all(Array.from({ length: Math.min(args.jobs, plans.length) }, worker));
  } finally {
    progress.done();
    await Promise.all([pool.dispose(), disposeVlmEngines()]);
    evictCache(defaultPageCacheDir());
    pruneWriteRecords();
  }
  if (interrupted) return EXIT_CODES.cancelled;
  return exitCode;
}

async function convertCommand(argv: string[]): Promise<number> {
  if (wantsHelp(argv)) {
    process.stdout.write(CONVERT_USAGE + '\n');
    return 0;
  }
  const args = parseConvertArgs(argv);
  const plans = plannedOutputs(args);
  checkQueueArgs(args);
  return args.queue ? convertQueued({ ...args, queue: args.queue }, plans) : convertHere(args, plans);
}

async function main(argv: string[]): Promise<number> {
  startupMark('cli:main');
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'convert':
        return await convertCommand(rest);
      case 'mcp': {
        const { runMcpCommand } = commandBundle<typeof import('../mcp/server')>('mcp');
        return await runMcpCommand(rest);
      }
      case 'models': {
        const { runModelsCommand } = commandBundle<typeof import('./models')>('models');
        return await runModelsCommand(rest);
      }
      case 'worker': {
        const { workerCommand } = commandBundle<typeof import('../queue/workerCommand')>('worker');
        return await workerCommand(rest);
      }
      case 'serve': {
        const { serveCommand } = commandBundle<typeof import('../serve/serveCommand')>('serve');
        return await serveCommand(rest);
      }
      case '--version':
      case '-v':
        process.stdout.write(`folio ${VERSION}\n`);
        return 0;
      case undefined:
      case '--help':
      case '-h':
      case 'help':
        process.stdout.write(
          `folio ${VERSION}: PDF to Markdown on your own machine\n\n${CONVERT_USAGE}\n\nusage: folio models pull|list|remove ...\n       folio serve --help\n       folio worker --help\n       folio mcp <folder>...   (Model Context Protocol server on stdio)\n`,
        );
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command "${command}" (try folio --help)`);
    }
  } catch (e) {
    // A usage error is kind `input` (2), also when a command's own bundle threw it.
    process.stderr.write(`folio: ${messageOf(e)}\n`);
    return EXIT_CODES[kindOf(e)];
  }
}

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
  process.once('exit', () => startupMark('cli:exit'));
});
