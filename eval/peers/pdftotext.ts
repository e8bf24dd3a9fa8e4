/** poppler's `pdftotext` (Debian poppler-utils), plain reading order or `-layout`. */
import { execFileSync } from 'node:child_process';
import { mapLimit, runProcess } from '../run';
import type { BatchResult, Peer, PeerOutput } from './types';

export function pdftotextMissing(): string | undefined {
  try {
    execFileSync('pdftotext', ['-v'], { stdio: 'ignore' });
    return undefined;
  } catch {
    return 'pdftotext is not installed: install Debian poppler-utils (apt-get install -y poppler-utils)';
  }
}

export function pdftotextPeer(layout: boolean): Peer {
  return {
    name: layout ? 'pdftotext -layout' : 'pdftotext',
    format: 'text',
    unavailable: pdftotextMissing,
    async convertAll(pdfs, _workDir, opts): Promise<BatchResult> {
      const outputs = new Map<string, PeerOutput>();
      let peakRss = 0;
      const t0 = performance.now();
      await mapLimit(pdfs, opts.jobs, async (pdf) => {
        const r = await runProcess('pdftotext', [...(layout ? ['-layout'] : []), '-enc', 'UTF-8', pdf, '-'], {
          timeoutMs: opts.timeoutMs,
        });
        peakRss = Math.max(peakRss, r.peakRss);
        outputs.set(
          pdf,
          r.code === 0
            ? { text: r.stdout, ms: r.ms }
            : { error: r.timedOut ? 'timeout' : r.stderr.trim().split('\n')[0] || `exit ${r.code}`, ms: r.ms },
        );
      });
      return { outputs, wallMs: performance.now() - t0, peakRss };
    },
  };
}
