/**
 * `folio models pull|list|remove`: the command-line face of the model manager (server/modelStore).
 *
 *   folio models pull [granite-docling|heron|all|<owner/repo>] [--dtype fp32] [--dir <folder>] [--endpoint <url>]
 *                     [--revision <commit|branch>] [--trust-hub] [--allow-http-loopback]
 *   folio models list [--dir <folder>]
 *   folio models remove <name> [--dir <folder>]
 *
 * Returns the process exit code: 0 done, 1 failed (message on stderr), 2 usage error.
 */
import { isCancelled, isFolioError, kindOf, UsageError } from '../errors';
import { EXIT_CODES } from '../exitCodes';
import { parseFlags, switchFlag, textFlag, usageText, valueFlag } from '../flags/table';
import { CATALOG, defaultModelsDir } from '../modelStore/catalog';
import { listModels, pullModel, removeModel } from '../modelStore/manager';
import { DTYPE_SUFFIX } from '../vlm/config';

export const MODELS_FLAGS = {
  dtype: valueFlag(
    '<d>',
    [`VLM variant: ${Object.keys(DTYPE_SUFFIX).join(', ')} (default fp32; q4f16 is known to garble output)`],
    (text, flag) => {
      if (DTYPE_SUFFIX[text] === undefined)
        throw new UsageError(`${flag} must be one of ${Object.keys(DTYPE_SUFFIX).join(', ')}`);
      return text;
    },
  ),
  dir: {
    ...textFlag('<folder>', [`models folder (default ${defaultModelsDir()}; FOLIO_MODELS overrides)`]),
    default: '',
  },
  endpoint: textFlag('<url>', ['hub address, HTTPS only (default HF_ENDPOINT or https://huggingface.co)']),
  revision: textFlag('<commit|branch>', [
    "commit or branch to download (default: the catalog's pinned commit, else main's commit)",
  ]),
  'trust-hub': switchFlag(["accept files Folio pins no checksum for, checked only against the hub's listing"]),
  'allow-http-loopback': switchFlag(['accept http:// to 127.0.0.1/localhost (a local test hub)']),
};

export const MODELS_USAGE = usageText(
  `usage: folio models pull [granite-docling|heron|all|<owner/repo>] [--dtype <d>] [--dir <folder>] [--endpoint <url>]
                         [--revision <commit|branch>] [--trust-hub] [--allow-http-loopback]
       folio models list [--dir <folder>]
       folio models remove <name> [--dir <folder>]`,
  MODELS_FLAGS,
  '',
  30,
);

function mb(n: number): string {
  return `${(n / 1e6).toFixed(1)} MB`;
}

function parse(argv: string[]) {
  const { values, positionals } = parseFlags(MODELS_FLAGS, argv);
  return { ...values, dir: values.dir || defaultModelsDir(), positional: positionals };
}

type Parsed = ReturnType<typeof parse>;

/** `folio models pull`: each model named (granite-docling when none; `all`: the catalog), with a progress bar on stderr. */
async function pull(args: Parsed): Promise<number> {
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
        trustHub: args['trust-hub'],
        allowLoopbackHttp: args['allow-http-loopback'],
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

function list(args: Parsed): number {
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

export async function runModelsCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  try {
    const args = parse(rest);
    switch (sub) {
      case 'pull':
        return await pull(args);
      case 'list':
        return list(args);
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
      return EXIT_CODES.input;
    }
    if (isCancelled(e)) {
      process.stderr.write('\nfolio models: interrupted; run the same command again to resume\n');
      return EXIT_CODES.cancelled;
    }
    process.stderr.write(`\nfolio models: ${isFolioError(e) ? e.message : ((e as Error).stack ?? String(e))}\n`);
    return EXIT_CODES[kindOf(e)];
  }
}
