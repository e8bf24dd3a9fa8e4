/**
 * Every flag more than one command takes, or that belongs to a family a command takes whole,
 * declared once in groups: what `folio convert` writes (OUTPUT), which document and pages
 * (DOCUMENT), how pages are read (ENGINE), the remote VLM (VLM, VLM_PACE), the resource limits
 * (LIMIT), the Redis queue (QUEUE) and the pool (RUN). A command's table is its groups plus its
 * own flags (convertCommand/args.ts, serve/serveCommand.ts, queue/workerCommand.ts, mcp/args.ts,
 * cli/models.ts), so a check such as the `--vlm-url` refusal is written here only.
 */
import { resolve } from 'node:path';
import {
  CONVERT_OPTIONS,
  DEFAULT_OUTPUT_FORMAT,
  choiceList,
  formatNames,
  outputFormatOf,
  type ChoiceOf,
  type OutputFormat,
} from '../../common/requestModel';
import { UsageError } from '../errors';
import { remoteUrlProblem } from '../util/loopback';
import { checkRedisUrl } from '../util/redisUrl';
import { DEFAULT_REMOTE_MODEL } from '../vlm/remoteOptions';
import { checkLimit, DEFAULT_LIMITS, type LIMIT_RANGES } from '../worker/limits';
import {
  choiceFlag,
  numberFlag,
  switchFlag,
  textFlag,
  valueFlag,
  wholeNumberFlag,
  type Flag,
  type FlagTable,
} from './table';

/** A folder, made absolute; an empty one is refused. */
function folderFlag(arg: string, help: readonly string[]): Flag<string> {
  return valueFlag(arg, help, (text, flag) => {
    if (text === '') throw new UsageError(`${flag} needs a folder`);
    return resolve(text);
  });
}

/** A resource limit (docs/limits.md): its range and its message are the backend's (`checkLimit`). */
function limitFlag(key: keyof typeof LIMIT_RANGES, arg: string, help: readonly string[]): Flag<number> {
  return valueFlag(arg, help, (text, flag) => {
    try {
      return checkLimit(key, text.trim() === '' ? NaN : Number(text), flag);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  });
}

/**
 * A conversion option shared with the other surfaces: its choices, default and help come from
 * common/requestModel.ts `CONVERT_OPTIONS`, so the flag cannot drift from the service or the extension.
 */
function optionFlag<K extends 'engine' | 'ocr' | 'layoutPrior' | 'speculation'>(
  key: K,
  arg: string,
  prefix = '',
): Flag<ChoiceOf<K>, ChoiceOf<K>> {
  const spec = CONVERT_OPTIONS[key];
  const choices = spec.choices as readonly ChoiceOf<K>[];
  return {
    ...choiceFlag(arg, choices, [`${prefix}${choiceList(spec)}`]),
    default: spec.default as ChoiceOf<K>,
  };
}

/** `--format`: the command line's names of common/requestModel.ts `OUTPUT_FORMATS`; the spelled-out alias (`markdown`) is taken too. */
function formatFlag(): Flag<OutputFormat, OutputFormat> {
  const names = formatNames('cli');
  const list = `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
  return {
    arg: '<f>',
    help: [
      `${names.map((n) => (n === DEFAULT_OUTPUT_FORMAT ? `${n} (default)` : n)).join(', ')}`,
      '(docling: DoclingDocument JSON; chunks: JSON Lines for retrieval; docs/formats.md)',
    ],
    default: DEFAULT_OUTPUT_FORMAT,
    read: (text, flag) => {
      const f = outputFormatOf(text);
      if (!f || !(names as readonly string[]).includes(f))
        throw new UsageError(`${flag} must be ${list}, not "${text}"`);
      return f;
    },
  };
}

const SCALE = CONVERT_OPTIONS.scale;

export const OUTPUT_FLAGS = {
  output: textFlag('<path>', ['output file (one input) or folder (several inputs)'], 'o'),
  format: formatFlag(),
  images: choiceFlag(
    '<mode>',
    ['link', 'embed', 'none'],
    ['pictures: link (default, files in <name>.assets/),', 'embed (data URIs) or none (placeholder)'],
  ),
  'chunk-size': wholeNumberFlag('<n>', 16, 1_000_000, ['chunks: size limit (default 2000 chars / 512 tokens)']),
  'chunk-unit': choiceFlag('<u>', ['chars', 'tokens'], ['chunks: chars (default) or tokens (cl100k)']),
  'chunk-schema': choiceFlag(
    '<s>',
    ['docling', 'flat'],
    ["chunks: docling (default: Docling's DocChunk, with", '<name>.docling.json beside it) or flat'],
  ),
  'page-images': switchFlag(['also render page images into the cache folder']),
  quiet: { ...switchFlag(['no progress output']), short: 'q' },
  verbose: switchFlag(["also print the engine's log on stderr (providers tried, the WebGPU adapter, speculation)"]),
  force: switchFlag(['replace outputs folio did not write, or that were edited']),
} satisfies FlagTable;

export const DOCUMENT_FLAGS = {
  pages: textFlag('<list>', ['pages to convert, e.g. 1-3,7 (default: all)']),
  password: textFlag('<p>', ['password of an encrypted PDF']),
} satisfies FlagTable;

export const RUN_FLAGS = {
  jobs: {
    ...wholeNumberFlag('<n>', 1, 64, ['documents converted at once and page-worker threads (default 2)']),
    default: 2,
  },
} satisfies FlagTable;

export const ENGINE_FLAGS = {
  engine: optionFlag('engine', '<e>'),
  models: folderFlag('<dir>', ["model folder of the local VLM (default: folio models' folder)"]),
  providers: valueFlag('<list>', ['onnxruntime providers in order, e.g. cuda,webgpu,cpu'], (text) =>
    text
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  ),
  'layout-prior': optionFlag('layoutPrior', '<m>', 'VLM layout prior: '),
  speculation: {
    ...optionFlag('speculation', '<m>', "VLM decoding with the pipeline's drafts: "),
    help: [
      `VLM decoding with the pipeline's drafts: ${choiceList(CONVERT_OPTIONS.speculation)}`,
      '(auto: per provider; off: plain greedy)',
    ],
  },
  'keep-furniture': switchFlag([CONVERT_OPTIONS.keepFurniture.doc]),
  'keep-hidden-text': switchFlag([
    'keep text a reader cannot see (white on white, covered,',
    'clipped, squeezed, invisible; docs/text-layer.md)',
  ]),
  ocr: optionFlag('ocr', '<mode>'),
  scale: {
    ...numberFlag('<n>', SCALE.min, SCALE.max, [`render scale, 1 = 72 dpi (default ${SCALE.default})`]),
    default: SCALE.default,
  },
} satisfies FlagTable;

export const VLM_FLAGS = {
  'vlm-url': valueFlag('<url>', ['remote VLM: OpenAI-compatible base URL, e.g. http://host:8000/v1'], (url, flag) => {
    if (!/^https?:\/\//.test(url))
      throw new UsageError(`${flag} must be an http(s) URL such as http://host:8000/v1, not "${url}"`);
    const problem = remoteUrlProblem(url);
    if (problem) throw new UsageError(`${flag} ${url} is refused: ${problem}`);
    return url;
  }),
  'vlm-model': textFlag('<name>', [`remote VLM model (default ${DEFAULT_REMOTE_MODEL})`]),
  'vlm-api-key': textFlag('<k>', ['remote VLM API key (or FOLIO_VLM_API_KEY)']),
} satisfies FlagTable;

/** How hard `folio convert` drives a remote VLM. */
export const VLM_PACE_FLAGS = {
  'vlm-parallel': wholeNumberFlag('<n>', 1, 64, ['remote VLM pages in flight (default 4)']),
  'vlm-timeout': valueFlag('<s>', ['remote VLM timeout per page in seconds (default 120)'], (text, flag) => {
    const n = Number(text);
    if (!(n > 0 && n <= 3600)) throw new UsageError(`${flag} takes seconds from 1 to 3600`);
    return n;
  }),
} satisfies FlagTable;

export const LIMIT_FLAGS = {
  'max-document-seconds': limitFlag('documentSeconds', '<s>', [
    `time budget of each document (default ${DEFAULT_LIMITS.documentSeconds}; 0 = none)`,
  ]),
  'max-page-memory': limitFlag('pageMemoryMb', '<MB>', [
    `memory budget of each page's PDF decoding (default ${DEFAULT_LIMITS.pageMemoryMb})`,
  ]),
  'max-pages': limitFlag('maxPages', '<n>', [
    `most pages converted of each document (default ${DEFAULT_LIMITS.maxPages})`,
  ]),
  'max-cells': limitFlag('maxCells', '<n>', [
    `most cells read of each workbook or CSV (default ${DEFAULT_LIMITS.maxCells}; the rest left out, with a warning)`,
  ]),
} satisfies FlagTable;

export const QUEUE_FLAGS = {
  queue: textFlag('<url>', ['send the documents to `folio worker`s through Redis (redis://host:6379)']),
  redis: valueFlag('<url>', ['Redis holding the queue (BullMQ): redis://host:6379'], (url) => {
    try {
      checkRedisUrl(url);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    return url;
  }),
  'range-pages': wholeNumberFlag('<n>', 1, 10000, ['pages per queue job (default 8)']),
} satisfies FlagTable;
