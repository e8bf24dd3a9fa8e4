/**
 * Pages per second for Folio (its CLI, one call, --jobs 2, no page images) and each peer on
 * the same files in the same run, so the ratios hold on whatever machine runs them.
 */
import { join } from 'node:path';
import type { CorpusEntry } from '../eval/corpus';
import type { Peer } from '../eval/peers/types';

export interface Throughput {
  peer: string;
  files: number;
  failed: number;
  pages: number;
  wallMs: number;
  pagesPerSec: number;
  secPerPage: number;
  peakRss: number;
}

export async function measure(peer: Peer, entries: CorpusEntry[], workDir: string, jobs: number): Promise<Throughput> {
  const r = await peer.convertAll(
    entries.map((e) => e.pdf),
    join(workDir, peer.name.replace(/[^A-Za-z0-9]+/g, '_')),
    { jobs, timeoutMs: 120_000 },
  );
  const ok = entries.filter((e) => r.outputs.get(e.pdf)?.text !== undefined);
  // Pages of the files that converted: a failed file's pages were not delivered.
  const pages = ok.reduce((s, e) => s + (e.pages ?? 0), 0);
  return {
    peer: peer.name,
    files: entries.length,
    failed: entries.length - ok.length,
    pages,
    wallMs: r.wallMs,
    pagesPerSec: pages / (r.wallMs / 1000),
    // No page delivered: no rate (NaN prints as "–"), rather than a made-up per-page time.
    secPerPage: pages > 0 ? r.wallMs / 1000 / pages : NaN,
    peakRss: r.peakRss,
  };
}
