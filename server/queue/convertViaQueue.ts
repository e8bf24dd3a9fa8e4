/**
 * `folio convert --queue redis://… <files>`: the same outputs as an in-process conversion, byte
 * for byte in every format and picture mode (test/queue/exports.test.ts), but every document goes
 * through the BullMQ queue to whichever `folio worker`s are running. The pages come back from
 * Redis and are rendered here exactly as in-process: the crops are laid out as the in-process run
 * lays them out (convertCommand/pictures.ts), so the links, names and bytes are the same.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { safeWriteFileSync } from '../../common/safeWrite';
import { basename, dirname, join, relative } from 'node:path';
import type { ConvertArgs } from '../convertCommand/args';
import type { ConvertSummary } from '../../common/protocol';
import { ProgressLine } from '../convertCommand/progress';
import { engineOptions } from '../convertCommand/engineOptions';
import { exportProblem } from '../convertCommand/exportCheck';
import { linkedAssetsFolder } from '../convertCommand/pictures';
import { QueueClient } from './client';
import { DEFAULT_LIMITS } from '../worker/limits';
import { messageOf, nothingConverted } from '../errors';

export interface QueueOutputs {
  outputPath(pdf: string): string;
  /**
   * Renders the output; `picturesDir` is the folder the pages' picture links are relative to,
   * `picturesRoot` the document's pictures folder (the only place an export reads pictures from).
   */
  render(summary: ConvertSummary, picturesDir: string, picturesRoot: string): string;
  write(path: string, text: string): void;
}

export async function convertViaQueue(
  args: ConvertArgs & { queue: string },
  files: string[],
  out: QueueOutputs,
): Promise<number> {
  const progress = new ProgressLine(process.stderr, !args.quiet && process.stderr.isTTY === true);
  const client = new QueueClient(args.queue, { log: (m) => progress.note(`folio: ${m}`) });
  const abort = new AbortController();
  process.once('SIGINT', () => abort.abort());
  let failures = 0;
  try {
    await Promise.all(
      files.map(async (pdf) => {
        if (!(await convertOne({ args, out, client, progress, signal: abort.signal }, pdf))) failures++;
      }),
    );
  } finally {
    progress.done();
    await client.close();
  }
  if (abort.signal.aborted) return 130;
  return failures > 0 ? 1 : 0;
}

/** What every document of one `folio convert --queue` run shares. */
interface QueueRun {
  args: ConvertArgs & { queue: string };
  out: QueueOutputs;
  client: QueueClient;
  progress: ProgressLine;
  signal: AbortSignal;
}

/** One document through the queue to its output; false when it failed, in part (page errors) or whole, or was cancelled. */
async function convertOne({ args, out, client, progress, signal }: QueueRun, pdf: string): Promise<boolean> {
  const label = relative(process.cwd(), pdf) || pdf;
  const started = Date.now();
  let embedDir: string | undefined;
  try {
    let bytes: Buffer;
    try {
      bytes = readFileSync(pdf);
    } catch {
      throw new Error('was not found: check the path');
    }
    if (bytes.length === 0) throw new Error('is empty (0 bytes): it is not a PDF; re-download or re-export it');
    const outPath = out.outputPath(pdf);
    // Crops as the in-process run lays them out: a folder beside the output, flat in a
    // temporary folder for embedding, or none.
    const layout =
      args.pictures === 'none'
        ? { pictures: 'none' as const }
        : args.pictures === 'embed'
          ? { pictures: 'flat' as const }
          : { pictures: 'folder' as const, assetsFolder: linkedAssetsFolder(outPath) };
    const id = await client.submit({
      name: basename(pdf),
      pdf: bytes,
      pages: args.pages,
      password: args.password,
      rangePages: args.rangePages,
      // The same page limit as in-process (security round 3, F2); workers apply their own too.
      maxPages: args.limits.maxPages ?? DEFAULT_LIMITS.maxPages,
      options: engineOptions(args),
      ...layout,
    });
    const st = await client.wait(id, (done, total) => progress.update(label, done, total ?? 0), signal);
    if (st.state === 'failure') throw new Error(st.error ?? 'failed');
    const res = await client.result(id, layout);
    if (!res) throw new Error('the result expired before it was read');
    const none = nothingConverted(res.summary);
    if (none) throw new Error(none.message); // as in-process: nothing written
    // Every format renders from the pages (docling, chunks, embedded pictures, json): all of them, always.
    res.summary.pages = res.pages;
    res.summary.uri = pdf;
    res.summary.elapsedMs = Date.now() - started;
    // Asset names are checked against the layout chosen here, never the one read back from
    // Redis (a Redis writer could rewrite that: security round 3, F1); the writes never
    // follow a link or leave their folder (common/safeWrite), as in-process.
    const assets = await client.store.assets(id, layout);
    embedDir = args.pictures === 'embed' ? mkdtempSync(join(tmpdir(), 'folio-pictures-')) : undefined;
    const picturesDir = embedDir ?? dirname(outPath);
    for (const [name, data] of assets) safeWriteFileSync(join(picturesDir, name), data, { root: picturesDir });
    const text = out.render(res.summary, picturesDir, embedDir ?? join(dirname(outPath), linkedAssetsFolder(outPath)));
    const empty = exportProblem(args.format, text, res.summary);
    if (empty) throw new Error(empty);
    out.write(outPath, text);
    const errs = res.summary.pageErrors.length;
    progress.note(
      `${label} → ${outPath} (${res.summary.pagesDone.length} pages via the queue, ${((Date.now() - started) / 1000).toFixed(1)} s${errs ? `; ${errs} page(s) failed` : ''})`,
      process.stdout,
    );
    return !(errs > 0 || st.state === 'cancelled');
  } catch (e) {
    progress.note(`folio: ${label}: ${messageOf(e).split('\n')[0]}`);
    return false;
  } finally {
    if (embedDir) rmSync(embedDir, { recursive: true, force: true });
  }
}
