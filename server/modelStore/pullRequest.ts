/**
 * `folio/pullModel`: the extension's "Download models" runs here, in the backend, so the
 * extension host imports no backend code (ARCHITECTURE.md). The parameters come over JSON-RPC
 * from another process: checked before a byte is fetched.
 */
import { isAbsolute } from 'node:path';
import type { PullModelParams, PullModelResult } from '../../common/protocol';
import { DTYPE_SUFFIX } from '../vlm/config';
import { CATALOG } from './catalog';
import { pullModel } from './manager';

/** What is wrong with the parameters, or undefined. */
export function checkPullModelParams(params: unknown): string | undefined {
  const p = params as Partial<PullModelParams> | null;
  if (!p || typeof p !== 'object') return 'the parameters must be an object';
  if (typeof p.repo !== 'string' || !CATALOG.some((e) => e.name === p.repo))
    return `repo must be one of ${CATALOG.map((e) => e.name).join(', ')}`;
  if (typeof p.dtype !== 'string' || !Object.hasOwn(DTYPE_SUFFIX, p.dtype))
    return `dtype must be one of ${Object.keys(DTYPE_SUFFIX).join(', ')}`;
  if (typeof p.dir !== 'string' || !isAbsolute(p.dir)) return 'dir must be an absolute path';
  if (typeof p.trustHub !== 'boolean') return 'trustHub must be true or false';
  return undefined;
}

/** Downloads one catalog model; `report` gets a line and the pull's percentage as bytes arrive. */
export async function pullModelRequest(
  params: PullModelParams,
  signal: AbortSignal,
  report: (message: string, percentage: number) => void,
): Promise<PullModelResult> {
  let last = -1;
  const folder = await pullModel({
    repo: params.repo,
    dtype: params.dtype,
    dir: params.dir,
    trustHub: params.trustHub,
    signal,
    onProgress: (p) => {
      const pct = p.overallTotal > 0 ? Math.floor((p.overallReceived / p.overallTotal) * 100) : 0;
      if (pct === last) return;
      last = pct;
      report(`${params.repo}: ${p.file} (${pct}%)`, pct);
    },
  });
  return { folder };
}
