/**
 * Two runs of the real-world set compared test by test (`results.json` of each): what passed in
 * both counts, which tests the second run gained and which it lost. A change is judged by its lost
 * tests, not by the overall rate alone (a gain elsewhere can hide a loss).
 */
import { requireMeasured } from '../report/nothingMeasured';

export interface ResultRow {
  id: string;
  peer: string;
  passed: boolean;
  why: string;
}

export interface Comparison {
  before: { passed: number; total: number };
  after: { passed: number; total: number };
  /** Tests in both runs. */
  common: number;
  gained: string[];
  lost: { id: string; why: string }[];
}

/** Compares one converter's results (`peer`, Folio by default) of two runs. */
export function compareRuns(before: ResultRow[], after: ResultRow[], peer = 'Folio'): Comparison {
  const a = new Map(before.filter((r) => r.peer === peer).map((r) => [r.id, r]));
  const b = after.filter((r) => r.peer === peer);
  requireMeasured(a.size, `the first run's ${peer} results`, 'Is it a realworld results.json?');
  requireMeasured(b.length, `the second run's ${peer} results`, 'Is it a realworld results.json?');
  const common = b.filter((r) => a.has(r.id));
  requireMeasured(common.length, 'the tests both runs share', 'Are they runs of the same set?');
  return {
    before: { passed: [...a.values()].filter((r) => r.passed).length, total: a.size },
    after: { passed: b.filter((r) => r.passed).length, total: b.length },
    common: common.length,
    gained: common.filter((r) => r.passed && !a.get(r.id)!.passed).map((r) => r.id),
    lost: common.filter((r) => !r.passed && a.get(r.id)!.passed).map((r) => ({ id: r.id, why: r.why })),
  };
}
