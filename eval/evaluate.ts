/**
 * The quality evaluation shared by `npm run eval` and the CI quality test: convert every
 * document with each converter, score each output against its ground truth, aggregate per set.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CorpusEntry } from './corpus';
import { mean, median, meanScores, METRICS, scoreDocument, type DocScores } from './metrics/score';
import type { Peer } from './peers/types';

export interface FileResult {
  rel: string;
  set: string;
  peer: string;
  scores: DocScores;
  error?: string;
  ms: number;
}

export interface PeerRun {
  peer: string;
  wallMs: number;
  peakRss: number;
  files: FileResult[];
}

export interface Aggregate {
  peer: string;
  set: string;
  files: number;
  failed: number;
  nedMedian: number;
  metrics: Partial<Record<keyof DocScores, { mean: number; n: number }>>;
}

/** Convert with one peer and score every file; a failed conversion scores as empty output. */
export async function runPeer(
  peer: Peer,
  entries: CorpusEntry[],
  workDir: string,
  opts: { jobs: number; timeoutMs: number },
): Promise<PeerRun> {
  const batch = await peer.convertAll(
    entries.map((e) => e.pdf),
    join(workDir, peer.name.replace(/[^A-Za-z0-9]+/g, '_')),
    opts,
  );
  const files = entries.map((e): FileResult => {
    const out = batch.outputs.get(e.pdf) ?? { error: 'no result', ms: 0 };
    const gt = readFileSync(e.gt as string, 'utf8');
    return {
      rel: e.rel,
      set: e.set,
      peer: peer.name,
      scores: scoreDocument(gt, out.text ?? '', peer.format),
      error: out.text === undefined ? out.error : undefined,
      ms: out.ms,
    };
  });
  return { peer: peer.name, wallMs: batch.wallMs, peakRss: batch.peakRss, files };
}

export function aggregate(runs: PeerRun[], sets: string[]): Aggregate[] {
  const out: Aggregate[] = [];
  for (const set of [...sets, 'overall']) {
    for (const r of runs) {
      const fs = set === 'overall' ? r.files : r.files.filter((f) => f.set === set);
      if (fs.length === 0) continue;
      out.push({
        peer: r.peer,
        set,
        files: fs.length,
        failed: fs.filter((f) => f.error !== undefined).length,
        nedMedian: median(fs.map((f) => f.scores.ned)),
        metrics: meanScores(fs.map((f) => f.scores)),
      });
    }
  }
  return out;
}

/**
 * Where Folio is behind a peer on a set: every (set, metric, peer) where the peer's mean is
 * better. The target is an empty list for docling-src-rendered and selfmade-example.
 */
export function folioBehind(aggs: Aggregate[], folio = 'Folio'): string[] {
  const behind: string[] = [];
  const sets = [...new Set(aggs.map((a) => a.set))];
  for (const set of sets) {
    const f = aggs.find((a) => a.set === set && a.peer === folio);
    if (!f) continue;
    for (const p of aggs.filter((a) => a.set === set && a.peer !== folio)) {
      for (const m of METRICS) {
        const fv = f.metrics[m.key]?.mean;
        const pv = p.metrics[m.key]?.mean;
        if (fv === undefined || pv === undefined) continue;
        if (m.lowerIsBetter ? pv < fv : pv > fv)
          behind.push(`${set}: ${m.label} ${fv.toFixed(3)} vs ${p.peer} ${pv.toFixed(3)}`);
      }
    }
  }
  return behind;
}

export { mean, median };
