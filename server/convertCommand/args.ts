/**
 * Command-line parsing for `folio convert`: small and strict, so a typo is an error, not a silent
 * default. Shared by the in-process runner (server/cli) and the queue submitter (server/queue), so
 * it lives in neither: both import it, it imports neither.
 */
import { checkLimit, DEFAULT_LIMITS } from '../worker/limits';
import { remoteUrlProblem } from '../util/loopback';

export type OutputFormat = 'md' | 'doctags' | 'json' | 'docling' | 'chunks';
export type PictureMode = 'link' | 'embed' | 'none';

export interface ConvertArgs {
  inputs: string[];
  output?: string;
  pages?: string;
  format: OutputFormat;
  password?: string;
  jobs: number;
  images: boolean;
  /** Pictures in the output: linked files (default), data URIs, or placeholders. */
  pictures: PictureMode;
  chunkSize: number;
  chunkUnit: 'chars' | 'tokens';
  /** chunks: docling-core's DocChunk lines (default, with `<name>.docling.json` beside) or Folio's flat lines. */
  chunkSchema: 'docling' | 'flat';
  engine: 'pipeline' | 'vlm';
  models?: string;
  providers?: string[];
  keepFurniture: boolean;
  ocr: 'auto' | 'always' | 'never';
  layoutPrior: 'auto' | 'on' | 'off';
  /** VLM speculative decoding (undefined = auto). */
  speculation?: 'auto' | 'off' | 'page' | 'hsd';
  scale: number;
  quiet: boolean;
  /** Replace existing outputs folio did not write (or that changed since). */
  force: boolean;
  /** Resource limits given on the command line (docs/limits.md); the rest take the defaults. */
  limits: { documentSeconds?: number; pageMemoryMb?: number; maxPages?: number };
  /** Submit to the BullMQ queue at this Redis URL instead of converting here (server/queue). */
  queue?: string;
  rangePages?: number;
  /** Remote VLM over the OpenAI-compatible API (server/vlm/remote*). */
  vlmUrl?: string;
  vlmModel?: string;
  vlmApiKey?: string;
  vlmParallel?: number;
  vlmTimeoutMs?: number;
}

export class UsageError extends Error {}

export const CONVERT_USAGE = `usage: folio convert <file.pdf|scan.png|jpg|tiff|dir>... [options]

  -o, --output <path>     output file (one input) or folder (several inputs)
      --pages <list>      pages to convert, e.g. 1-3,7 (default: all)
      --format <f>        md (default), doctags, json, docling (DoclingDocument JSON)
                          or chunks (JSON Lines for retrieval; docs/formats.md)
      --images <mode>     pictures: link (default, files in <name>.assets/),
                          embed (data URIs) or none (placeholder)
      --chunk-size <n>    chunks: size limit (default 2000 chars / 512 tokens)
      --chunk-unit <u>    chunks: chars (default) or tokens (cl100k)
      --chunk-schema <s>  chunks: docling (default: Docling's DocChunk, with
                          <name>.docling.json beside it) or flat
      --password <p>      password of an encrypted PDF
      --jobs <n>          files converted at once and worker threads (default 2)
      --page-images       also render page images into the cache folder
      --engine <e>        pipeline (default) or vlm
      --models <dir>      model folder for --engine vlm
      --providers <list>  onnxruntime providers in order, e.g. cuda,webgpu,cpu
      --layout-prior <m>  VLM layout prior: off (default), auto or on
      --speculation <m>   VLM decoding with the pipeline's drafts: auto (default,
                          per provider), off (plain greedy), page or hsd
      --keep-furniture    keep page headers and footers in the Markdown
      --ocr <mode>        auto (default), always or never
      --scale <n>         render scale, 1 = 72 dpi (default 2)
  -q, --quiet             no progress output
      --force             replace outputs folio did not write, or that were edited
      --max-document-seconds <s>  time budget of each document (default ${DEFAULT_LIMITS.documentSeconds}; 0 = none)
      --max-page-memory <MB>      memory budget of each page's PDF decoding (default ${DEFAULT_LIMITS.pageMemoryMb})
      --max-pages <n>             most pages converted of each document (default ${DEFAULT_LIMITS.maxPages})
      --queue <url>       send the documents to \`folio worker\`s through Redis (redis://host:6379)
      --range-pages <n>   pages per queue job (default 8)
      --vlm-url <url>     remote VLM: OpenAI-compatible base URL, e.g. http://host:8000/v1
      --vlm-model <name>  remote VLM model (default ibm-granite/granite-docling-258M)
      --vlm-api-key <k>   remote VLM API key (or FOLIO_VLM_API_KEY)
      --vlm-parallel <n>  remote VLM pages in flight (default 4)
      --vlm-timeout <s>   remote VLM timeout per page in seconds (default 120)`;

export function parseConvertArgs(argv: string[]): ConvertArgs {
  const a: ConvertArgs = {
    inputs: [],
    format: 'md',
    jobs: 2,
    images: false,
    pictures: 'link',
    chunkSize: 0,
    chunkUnit: 'chars',
    chunkSchema: 'docling',
    engine: 'pipeline',
    keepFurniture: false,
    ocr: 'auto',
    layoutPrior: 'off',
    scale: 2,
    quiet: false,
    force: false,
    limits: {},
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = (): string => {
      const eq = arg.indexOf('=');
      if (arg.startsWith('--') && eq > 0) return arg.slice(eq + 1);
      const v = argv[++i];
      if (v === undefined) throw new UsageError(`${arg} needs a value`);
      return v;
    };
    const name = arg.startsWith('--') && arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg;
    switch (name) {
      case '-o':
      case '--output':
        a.output = value();
        break;
      case '--pages':
        a.pages = value();
        break;
      case '--format': {
        const f = value();
        if (f !== 'md' && f !== 'doctags' && f !== 'json' && f !== 'docling' && f !== 'chunks')
          throw new UsageError(`--format must be md, doctags, json, docling or chunks, not "${f}"`);
        a.format = f;
        break;
      }
      case '--password':
        a.password = value();
        break;
      case '--jobs': {
        const n = Number(value());
        if (!Number.isInteger(n) || n < 1 || n > 64) throw new UsageError('--jobs takes a whole number from 1 to 64');
        a.jobs = n;
        break;
      }
      case '--page-images':
        a.images = true;
        break;
      case '--images': {
        // `--images <mode>`; a bare `--images` keeps its old meaning (--page-images).
        const next = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[i + 1];
        if (next === 'link' || next === 'embed' || next === 'none') {
          a.pictures = next;
          if (!arg.includes('=')) i++;
        } else if (arg.includes('=')) throw new UsageError(`--images must be link, embed or none, not "${next}"`);
        else a.images = true;
        break;
      }
      case '--chunk-size': {
        const n = Number(value());
        if (!Number.isInteger(n) || n < 16 || n > 1_000_000)
          throw new UsageError('--chunk-size takes a whole number from 16 to 1000000');
        a.chunkSize = n;
        break;
      }
      case '--chunk-unit': {
        const u = value();
        if (u !== 'chars' && u !== 'tokens') throw new UsageError(`--chunk-unit must be chars or tokens, not "${u}"`);
        a.chunkUnit = u;
        break;
      }
      case '--chunk-schema': {
        const v = value();
        if (v !== 'docling' && v !== 'flat') throw new UsageError(`--chunk-schema must be docling or flat, not "${v}"`);
        a.chunkSchema = v;
        break;
      }
      case '--engine': {
        const e = value();
        if (e !== 'pipeline' && e !== 'vlm') throw new UsageError(`--engine must be pipeline or vlm, not "${e}"`);
        a.engine = e;
        break;
      }
      case '--models':
        a.models = value();
        break;
      case '--providers':
        a.providers = value()
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        break;
      case '--keep-furniture':
        a.keepFurniture = true;
        break;
      case '--ocr': {
        const m = value();
        if (m !== 'auto' && m !== 'always' && m !== 'never')
          throw new UsageError(`--ocr must be auto, always or never, not "${m}"`);
        a.ocr = m;
        break;
      }
      case '--layout-prior': {
        const m = value();
        if (m !== 'auto' && m !== 'on' && m !== 'off')
          throw new UsageError(`--layout-prior must be auto, on or off, not "${m}"`);
        a.layoutPrior = m;
        break;
      }
      case '--speculation': {
        const m = value();
        if (m !== 'auto' && m !== 'off' && m !== 'page' && m !== 'hsd')
          throw new UsageError(`--speculation must be auto, off, page or hsd, not "${m}"`);
        a.speculation = m;
        break;
      }
      case '--scale': {
        const s = Number(value());
        if (!(s >= 0.25 && s <= 8)) throw new UsageError('--scale takes a number from 0.25 to 8');
        a.scale = s;
        break;
      }
      case '--force':
        a.force = true;
        break;
      case '--max-document-seconds':
        a.limits.documentSeconds = wholeNumber('documentSeconds', value(), name);
        break;
      case '--max-page-memory':
        a.limits.pageMemoryMb = wholeNumber('pageMemoryMb', value(), name);
        break;
      case '--max-pages':
        a.limits.maxPages = wholeNumber('maxPages', value(), name);
        break;
      case '--queue':
        a.queue = value();
        break;
      case '--range-pages': {
        const n = Number(value());
        if (!Number.isInteger(n) || n < 1 || n > 10000)
          throw new UsageError('--range-pages takes a whole number from 1 to 10000');
        a.rangePages = n;
        break;
      }
      case '--vlm-url':
        a.vlmUrl = value();
        if (!/^https?:\/\//.test(a.vlmUrl))
          throw new UsageError(`--vlm-url must be an http(s) URL such as http://host:8000/v1, not "${a.vlmUrl}"`);
        if (remoteUrlProblem(a.vlmUrl))
          throw new UsageError(`--vlm-url ${a.vlmUrl} is refused: ${remoteUrlProblem(a.vlmUrl)}`);
        break;
      case '--vlm-model':
        a.vlmModel = value();
        break;
      case '--vlm-api-key':
        a.vlmApiKey = value();
        break;
      case '--vlm-parallel': {
        const n = Number(value());
        if (!Number.isInteger(n) || n < 1 || n > 64)
          throw new UsageError('--vlm-parallel takes a whole number from 1 to 64');
        a.vlmParallel = n;
        break;
      }
      case '--vlm-timeout': {
        const n = Number(value());
        if (!(n > 0 && n <= 3600)) throw new UsageError('--vlm-timeout takes seconds from 1 to 3600');
        a.vlmTimeoutMs = n * 1000;
        break;
      }
      case '-q':
      case '--quiet':
        a.quiet = true;
        break;
      default:
        if (arg.startsWith('-') && arg !== '-') throw new UsageError(`unknown option ${arg}`);
        a.inputs.push(arg);
    }
  }
  if (a.inputs.length === 0) throw new UsageError('no input: name one or more PDF files or folders');
  if (a.chunkSize === 0) a.chunkSize = a.chunkUnit === 'tokens' ? 512 : 2000;
  return a;
}

function wholeNumber(key: 'documentSeconds' | 'pageMemoryMb' | 'maxPages', text: string, flag: string): number {
  try {
    return checkLimit(key, text.trim() === '' ? NaN : Number(text), flag);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}
