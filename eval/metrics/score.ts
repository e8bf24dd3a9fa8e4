/**
 * Every metric for one converted document against its ground truth. A metric the ground truth
 * gives no basis for (no headings, no tables, …) is undefined rather than a free 1.0, so means
 * over files only count files where the metric says something.
 */
import { normalizedEditDistance } from './levenshtein';
import { blocksText, parseMarkdown, parsePlainText, type Block } from './markdown';
import { fuzzyF1 } from './match';
import { normalizeText } from './normalize';
import { formulasFound, readingOrder } from './order';
import { cellF1, meanTeds } from './tables';
import type { Table } from './table';

export type OutputFormat = 'markdown' | 'text';

export interface DocScores {
  /** Normalized edit distance of the whole text (lower is better). */
  ned: number;
  headingF1?: number;
  /** Heading F1 where a match also needs the same level. */
  headingLevelF1?: number;
  listF1?: number;
  tableCellF1?: number;
  teds?: number;
  readingOrder?: number;
  formulas?: number;
}

export const METRICS: { key: keyof DocScores; label: string; lowerIsBetter?: boolean }[] = [
  { key: 'ned', label: 'NED', lowerIsBetter: true },
  { key: 'headingF1', label: 'heading F1' },
  { key: 'headingLevelF1', label: 'heading F1 (level)' },
  { key: 'listF1', label: 'list F1' },
  { key: 'tableCellF1', label: 'table cell F1' },
  { key: 'teds', label: 'TEDS' },
  { key: 'readingOrder', label: 'reading order' },
  { key: 'formulas', label: 'formulas found' },
];

/** Parse an output in its format; plain-text converters get no Markdown interpretation. */
export function parseOutput(text: string, format: OutputFormat): Block[] {
  return format === 'markdown' ? parseMarkdown(text) : parsePlainText(text);
}

/** The comparable text of an output: block texts, normalized. */
export function comparableText(blocks: Block[]): string {
  return normalizeText(blocksText(blocks));
}

export function scoreDocument(gtMarkdown: string, output: string, format: OutputFormat): DocScores {
  const gt = parseMarkdown(gtMarkdown);
  const pred = parseOutput(output, format);
  const gtText = comparableText(gt);
  const predText = comparableText(pred);
  const s: DocScores = { ned: normalizedEditDistance(gtText, predText) };

  const heads = (bs: Block[]) => bs.filter((b) => b.kind === 'heading').map((b) => ({ text: b.text, level: b.level }));
  const gh = heads(gt);
  if (gh.length > 0) {
    const ph = heads(pred);
    s.headingF1 = fuzzyF1(gh, ph).f1;
    s.headingLevelF1 = fuzzyF1(gh, ph, { sameLevel: true }).f1;
  }
  const items = (bs: Block[]) =>
    bs.filter((b) => b.kind === 'list_item').map((b) => ({ text: b.text, level: b.level }));
  const gl = items(gt);
  if (gl.length > 0) s.listF1 = fuzzyF1(gl, items(pred)).f1;

  const tables = (bs: Block[]) => bs.filter((b) => b.kind === 'table' && b.table).map((b) => b.table as Table);
  const gtTables = tables(gt);
  if (gtTables.length > 0) {
    const pt = tables(pred);
    s.tableCellF1 = cellF1(gtTables, pt).f1;
    s.teds = meanTeds(gtTables, pt);
  }
  const ro = readingOrder(gt, blocksText(pred));
  if (ro) s.readingOrder = ro.score;
  const fo = formulasFound(gt, pred);
  if (fo) s.formulas = fo.recall;
  return s;
}

export function mean(xs: number[]): number {
  return xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length;
}

export function median(xs: number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Mean of each metric over the documents where it is defined. */
export function meanScores(all: DocScores[]): Partial<Record<keyof DocScores, { mean: number; n: number }>> {
  const out: Partial<Record<keyof DocScores, { mean: number; n: number }>> = {};
  for (const { key } of METRICS) {
    const xs = all.map((d) => d[key]).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
    if (xs.length) out[key] = { mean: mean(xs), n: xs.length };
  }
  return out;
}
