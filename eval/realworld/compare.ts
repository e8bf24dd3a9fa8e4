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

/** A part's aggregates as results.json stores them (eval/realworld/report.ts `PartTally`). */
export interface PartAggregates {
  tests: number;
  byType: Record<string, Record<string, { passed: number; total: number }>>;
  byClass: Record<string, Record<string, { passed: number; total: number }>>;
}

export interface SealedChange {
  key: string;
  before?: { passed: number; total: number };
  after?: { passed: number; total: number };
}

/**
 * The sealed part of two runs compared by its aggregates only (its tests are never stored):
 * overall, then per test type and per class, for one converter. Undefined when either run has
 * no sealed aggregates (a run from before the seal).
 */
export function compareSealed(
  before: PartAggregates | undefined,
  after: PartAggregates | undefined,
  peer = 'Folio',
): SealedChange[] | undefined {
  if (!before?.byType?.[peer] || !after?.byType?.[peer]) return undefined;
  const rows: SealedChange[] = [];
  const keys = (a: Record<string, unknown> = {}, b: Record<string, unknown> = {}) =>
    [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  const bt = before.byType[peer];
  const at = after.byType[peer];
  rows.push({ key: 'overall', before: bt.overall, after: at.overall });
  for (const k of keys(bt, at)) if (k !== 'overall') rows.push({ key: k, before: bt[k], after: at[k] });
  const bc = before.byClass?.[peer];
  const ac = after.byClass?.[peer];
  for (const k of keys(bc, ac)) rows.push({ key: `class ${k}`, before: bc?.[k], after: ac?.[k] });
  return rows;
}
