/**
 * `folio convert --queue redis://… <files>`: the same outputs as an in-process conversion, but
 * every document goes through the BullMQ queue to whichever `folio worker`s are running.
 */
import { readFileSync } from 'node:fs';
import { fitFileName, safeWriteFileSync } from '../util/safeWrite';
import { basename, dirname, extname, join, relative } from 'node:path';
import type { ConvertArgs } from '../convertCommand/args';
import type { ConvertSummary } from '../protocol';
import { ProgressLine } from '../convertCommand/progress';
import { engineOptions } from '../convertCommand/engineOptions';
import { QueueClient } from './client';

export interface QueueOutputs {
  outputPath(pdf: string): string;
  render(summary: ConvertSummary): string;
  write(path: string, text: string): void;
}

export async function convertViaQueue(args: ConvertArgs & { queue: string }, files: string[], out: QueueOutputs): Promise<number> {
  const progress = new ProgressLine(process.stderr, !args.quiet && process.stderr.isTTY === true);
  const client = new QueueClient(args.queue, { log: (m) => progress.note(`folio: ${m}`) });
  const abort = new AbortController();
  process.once('SIGINT', () => abort.abort());
  let failures = 0;
  try {
    await Promise.all(
      files.map(async (pdf) => {
        const label = relative(process.cwd(), pdf) || pdf;
        const started = Date.now();
        try {
          let bytes: Buffer;
          try {
            bytes = readFileSync(pdf);
          } catch {
            throw new Error('was not found: check the path');
          }
          if (bytes.length === 0) throw new Error('is empty (0 bytes): it is not a PDF; re-download or re-export it');
          const outPath = out.outputPath(pdf);
          const id = await client.submit({
            name: basename(pdf),
            pdf: bytes,
            pages: args.pages,
            password: args.password,
            rangePages: args.rangePages,
            options: engineOptions(args),
          });
          const st = await client.wait(id, (done, total) => progress.update(label, done, total ?? 0), abort.signal);
          if (st.state === 'failure') throw new Error(st.error ?? 'failed');
          const res = await client.result(id);
          if (!res) throw new Error('the result expired before it was read');
          if (res.summary.pagesDone.length === 0 && res.summary.pageErrors.length > 0) {
            throw new Error(`no page could be converted (${res.summary.pageErrors[0].message})`); // as in-process: nothing written
          }
          if (args.format === 'json') res.summary.pages = res.pages;
          res.summary.uri = pdf;
          res.summary.elapsedMs = Date.now() - started;
          // Assets are stored as "<stem>.assets/<file>"; put them beside the output under its stem.
          const assets = await client.store.assets(id);
          // Asset names come from Redis: only their base name is used, and the write never follows
          // a link or leaves the output's folder (server/util/safeWrite), as in-process writes.
          const assetsDir = join(dirname(outPath), fitFileName(basename(outPath, extname(outPath)), '.assets'));
          for (const [name, bytes] of assets) {
            safeWriteFileSync(join(assetsDir, basename(name)), bytes, { root: dirname(outPath) });
          }
          out.write(outPath, out.render(res.summary));
          const errs = res.summary.pageErrors.length;
          progress.note(`${label} → ${outPath} (${res.summary.pagesDone.length} pages via the queue, ${((Date.now() - started) / 1000).toFixed(1)} s${errs ? `; ${errs} page(s) failed` : ''})`, process.stdout);
          if (errs > 0 || st.state === 'cancelled') failures++;
        } catch (e) {
          failures++;
          progress.note(`folio: ${label}: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}`);
        }
      }),
    );
  } finally {
    progress.done();
    await client.close();
  }
  if (abort.signal.aborted) return 130;
  return failures > 0 ? 1 : 0;
}
