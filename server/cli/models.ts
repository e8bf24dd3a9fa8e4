/**
 * `folio models pull|list|remove`: the command-line face of the model manager (server/models).
 *
 *   folio models pull [granite-docling|heron|all|<owner/repo>] [--dtype fp32] [--dir <folder>] [--endpoint <url>]
 *                     [--revision <commit|branch>] [--trust-hub] [--allow-http-loopback]
 *   folio models list [--dir <folder>]
 *   folio models remove <name> [--dir <folder>]
 *
 * Returns the process exit code: 0 done, 1 failed (message on stderr), 2 usage error.
 */
import { isCancelled, isFolioError } from '../errors';
import { CATALOG, defaultModelsDir } from '../models/catalog';
import { listModels, pullModel, removeModel } from '../models/manager';
import { DTYPE_SUFFIX } from '../vlm/config';

export const MODELS_USAGE = `usage: folio models pull [granite-docling|heron|all|<owner/repo>] [--dtype <d>] [--dir <folder>] [--endpoint <url>]
                         [--revision <commit|branch>] [--trust-hub] [--allow-http-loopback]
       folio models list [--dir <folder>]
       folio models remove <name> [--dir <folder>]

  --dtype     VLM variant: ${Object.keys(DTYPE_SUFFIX).join(', ')} (default fp32; q4f16 is known to garble output)
  --dir       models folder (default ${defaultModelsDir()}; FOLIO_MODELS overrides)
  --endpoint  hub address, HTTPS only (default HF_ENDPOINT or https://huggingface.co)
  --revision  commit or branch to download (default: the catalog's pinned commit, else main's commit)
  --trust-hub accept files Folio pins no checksum for, checked only against the hub's listing
  --allow-http-loopback  accept http:// to 127.0.0.1/localhost (a local test hub)`;

function mb(n: number): string {
  return `${(n / 1e6).toFixed(1)} MB`;
}

interface Parsed {
  positional: string[];
  dtype?: string;
  dir: string;
  endpoint?: string;
  revision?: string;
  trustHub: boolean;
  allowLoopbackHttp: boolean;
}

function parse(argv: string[]): Parsed {
  const out: Parsed = { positional: [], dir: defaultModelsDir(), trustHub: false, allowLoopbackHttp: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new UsageError(`${a} needs a value`);
      return v;
    };
    if (a === '--dtype') out.dtype = value();
    else if (a === '--dir') out.dir = value();
    else if (a === '--endpoint') out.endpoint = value();
    else if (a === '--revision') out.revision = value();
    else if (a === '--trust-hub') out.trustHub = true;
    else if (a === '--allow-http-loopback') out.allowLoopbackHttp = true;
    else if (a.startsWith('--')) throw new UsageError(`unknown option ${a}`);
    else out.positional.push(a);
  }
  if (out.dtype && DTYPE_SUFFIX[out.dtype] === undefined)
    throw new UsageError(`--dtype must be one of ${Object.keys(DTYPE_SUFFIX).join(', ')}`);
  return out;
}

class UsageError extends Error {}

export async function runModelsCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  try {
    const args = parse(rest);
    switch (sub) {
      case 'pull': {
        const names =
          args.positional.length === 0
            ? ['granite-docling']
            : args.positional.includes('all')
              ? CATALOG.map((c) => c.name)
              : args.positional;
        const ac = new AbortController();
        const onSigint = () => ac.abort();
        process.once('SIGINT', onSigint);
        const tty = process.stderr.isTTY === true;
        try {
          for (const name of names) {
            let lastPct = -1;
            const path = await pullModel({
              repo: name,
              dtype: args.dtype,
              dir: args.dir,
              baseUrl: args.endpoint,
              revision: args.revision,
              trustHub: args.trustHub,
              allowLoopbackHttp: args.allowLoopbackHttp,
              signal: ac.signal,
              onProgress: (p) => {
                // Clamped: whatever a hub claims, the line never grows past 100% (one line per percent at most).
                const received = Math.min(p.overallReceived, p.overallTotal);
                const pct =
                  p.overallTotal > 0 ? Math.min(100, Math.max(0, Math.floor((received / p.overallTotal) * 100))) : 100;
                if (pct === lastPct) return;
                lastPct = pct;
                const width = 24;
                const bar = '█'.repeat(Math.round((pct / 100) * width)).padEnd(width, '░');
                const line = `${bar} ${pct}% ${mb(received)}/${mb(p.overallTotal)} ${p.model}: ${p.file}`;
                if (tty) process.stderr.write(`\r\x1b[2K${line.slice(0, (process.stderr.columns ?? 80) - 1)}`);
                else if (pct % 25 === 0) process.stderr.write(line + '\n');
              },
            });
            if (tty) process.stderr.write('\r\x1b[2K');
            process.stdout.write(`installed ${name} in ${path}\n`);
          }
        } finally {
          process.removeListener('SIGINT', onSigint);
        }
        return 0;
      }
      case 'list': {
        const models = listModels(args.dir);
        if (models.length === 0) {
          process.stdout.write(`no models in ${args.dir}; \`folio models pull\` downloads granite-docling\n`);
          return 0;
        }
        for (const m of models) {
          const dtypes = m.dtypes.length ? ` [${m.dtypes.join(', ')}]` : '';
          process.stdout.write(
            `${m.name}${dtypes}  ${mb(m.bytes)}  ${m.path}${m.managed ? '' : '  (not installed by folio)'}\n`,
          );
        }
        return 0;
      }
      case 'remove': {
        if (args.positional.length !== 1) throw new UsageError('remove needs one model name (see `folio models list`)');
        process.stdout.write(`removed ${removeModel(args.dir, args.positional[0])}\n`);
        return 0;
      }
      default:
        throw new UsageError(sub ? `unknown models command "${sub}"` : 'missing models command');
    }
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`folio models: ${e.message}\n${MODELS_USAGE}\n`);
      return 2;
    }
    if (isCancelled(e)) {
      process.stderr.write('\nfolio models: interrupted; run the same command again to resume\n');
      return 130;
    }
    process.stderr.write(`\nfolio models: ${isFolioError(e) ? e.message : ((e as Error).stack ?? String(e))}\n`);
    return 1;
  }
}
