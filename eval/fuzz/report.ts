/** The fuzzer's TSV and summary. */
import { markdownTable } from '../report/textTable';
import type { FuzzOutcome, FuzzResult } from './runFuzz';

export const FUZZ_OUTCOMES: FuzzOutcome[] = ['converted', 'partial', 'clear-error', 'unclear-error', 'hang', 'crash'];

const clean = (s: string) => s.replace(/[\t\n\r]+/g, ' ');

export function fuzzTsv(rs: FuzzResult[]): string {
  return (
    [
      'index\tsource\tkind\tseed\toutcome\tms\tpages_done\tpage_errors\tmutation\tdetail',
      ...rs.map((r) =>
        [
          r.index,
          r.source,
          r.kind,
          r.seed,
          r.outcome,
          Math.round(r.ms),
          r.pagesDone,
          r.pageErrors,
          clean(r.note),
          clean(r.detail),
        ].join('\t'),
      ),
    ].join('\n') + '\n'
  );
}

export function fuzzSummary(rs: FuzzResult[], restarts: number, title: string): string {
  const kinds = [...new Set(rs.map((r) => r.kind))];
  const rows = [...kinds, 'all'].map((k) => {
    const sub = k === 'all' ? rs : rs.filter((r) => r.kind === k);
    return [k, String(sub.length), ...FUZZ_OUTCOMES.map((o) => String(sub.filter((r) => r.outcome === o).length))];
  });
  const out = [
    `# ${title}`,
    '',
    markdownTable(['mutation', 'cases', ...FUZZ_OUTCOMES], rows),
    '',
    `Backend restarts: ${restarts}`,
    '',
  ];
  const bad = rs.filter((r) => r.outcome === 'crash' || r.outcome === 'hang' || r.outcome === 'unclear-error');
  if (bad.length) {
    out.push('## Crashes, hangs and unclear errors', '');
    for (const r of bad)
      out.push(
        `- **${r.outcome}** case ${r.index} (${r.source}, ${r.kind}, seed ${r.seed}: ${r.note}): ${r.detail.split('\n').join(' | ')}`,
      );
    out.push('');
  }
  return out.join('\n');
}
