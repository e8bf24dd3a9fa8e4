/** The sweep's TSV and summary. */
import { OUTCOMES, type Outcome } from './classify';
import type { SweepResult } from './runSweep';
import { markdownTable } from '../report/textTable';

const clean = (s: string) => s.replace(/[\t\n\r]+/g, ' ');

export function sweepTsv(rs: SweepResult[]): string {
  const head = ['file', 'set', 'outcome', 'exit', 'signal', 'ms', 'peak_rss_mb', 'reason'];
  return (
    [
      head.join('\t'),
      ...rs.map((r) =>
        [
          r.rel,
          r.set,
          r.outcome,
          r.code ?? '',
          r.signal ?? '',
          Math.round(r.ms),
          (r.peakRss / 2 ** 20).toFixed(0),
          clean(r.reason),
        ].join('\t'),
      ),
    ].join('\n') + '\n'
  );
}

export function countOutcomes(rs: SweepResult[]): Record<Outcome, number> {
  const c = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  for (const r of rs) c[r.outcome]++;
  return c;
}

export function sweepSummary(rs: SweepResult[], title: string): string {
  const sets = [...new Set(rs.map((r) => r.set))];
  const rows = [...sets, 'all'].map((s) => {
    const sub = s === 'all' ? rs : rs.filter((r) => r.set === s);
    const c = countOutcomes(sub);
    return [s, String(sub.length), ...OUTCOMES.map((o) => String(c[o]))];
  });
  const bad = rs.filter((r) => r.outcome === 'crash' || r.outcome === 'timeout' || r.outcome === 'unclear-error');
  const slow = [...rs].sort((a, b) => b.ms - a.ms).slice(0, 5);
  const peak = [...rs].sort((a, b) => b.peakRss - a.peakRss)[0];
  const lines = [
    `# ${title}`,
    '',
    markdownTable(['set', 'files', ...OUTCOMES], rows),
    '',
    `Slowest: ${slow.map((r) => `${r.rel} ${(r.ms / 1000).toFixed(1)} s`).join('; ')}`,
    peak ? `Largest peak RSS: ${peak.rel} ${(peak.peakRss / 2 ** 20).toFixed(0)} MiB` : '',
    '',
  ];
  if (bad.length) {
    lines.push('## Crashes, timeouts and unclear errors', '');
    for (const r of bad)
      lines.push(
        `- **${r.outcome}** \`${r.rel}\`: ${r.reason}${
          r.detail
            ? '\n\n  ```\n' +
              r.detail
                .split('\n')
                .map((l) => '  ' + l)
                .join('\n') +
              '\n  ```'
            : ''
        }`,
      );
    lines.push('');
  }
  const reasons = new Map<string, number>();
  for (const r of rs.filter((x) => x.outcome === 'clear-error'))
    reasons.set(r.reason, (reasons.get(r.reason) ?? 0) + 1);
  if (reasons.size) {
    lines.push('## Clear errors by message', '');
    for (const [m, n] of [...reasons].sort((a, b) => b[1] - a[1]).slice(0, 30)) lines.push(`- ${n} × ${m}`);
    lines.push('');
  }
  return lines.join('\n');
}
