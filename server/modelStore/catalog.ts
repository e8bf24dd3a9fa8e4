/**
 * The models Folio knows how to download, where they go, and which of a repository's files a
 * dtype variant needs. Folder names match what `loadVlm` and the detector lookup search for.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { DTYPE_SUFFIX } from '../vlm/config';

export interface CatalogEntry {
  /** Short name used on the command line (`folio models pull granite-docling`). */
  name: string;
  repo: string;
  /** Folder under the models root. */
  folder: string;
  description: string;
  /** Whether the repository has dtype variants (`onnx/<part><suffix>.onnx`). */
  variants: boolean;
  /**
   * The commit (40 hex digits) to download, pinned when Folio's authors have checked it. Unset,
   * a pull resolves `main` to its commit once and takes every file from that commit.
   */
  revision?: string;
  /**
   * Expected size and SHA-256 of files, checked by Folio's authors and shipped with Folio: a
   * pinned file is verified against these, not against the hub's listing (which comes from the
   * same server as the file). A file without a pin needs the user's explicit trust in the hub
   * (`--trust-hub`, or the extension's confirmation).
   */
  pinned?: Readonly<Record<string, { size: number; sha256: string }>>;
  /**
   * Caps set by Folio, not by the hub (issue 21 item 12: a listing that said 5 GB got 5 GB): the
   * largest weight file (`.onnx`, `.onnx_data*`, `.safetensors`, `.bin`) and the whole download
   * of one dtype. A listing past them is refused before a byte is fetched; a pinned size is
   * Folio's own and stands. Defaults: `DEFAULT_MAX_FILE_BYTES`, `DEFAULT_MAX_TOTAL_BYTES`.
   */
  maxFileBytes?: number;
  maxTotalBytes?: number;
}

const GiB = 1024 * 1024 * 1024;
/** ONNX keeps a model file under 2 GB (protobuf); larger weights go to external data files of that size. */
export const DEFAULT_MAX_FILE_BYTES = 2 * GiB;
export const DEFAULT_MAX_TOTAL_BYTES = 8 * GiB;
/** Every other file (configs, tokenizer, chat template): granite-docling's tokenizer.json is ~3.5 MB. */
export const MAX_OTHER_FILE_BYTES = 64 * 1024 * 1024;

export function isWeightFile(path: string): boolean {
  return /\.(onnx|onnx_data(_\d+)?|safetensors|bin)$/.test(path);
}

/*
 * No revision or checksum is pinned yet: they must be read from the hub, and this project's
 * machines have no access to huggingface.co. Values are not copied from third-party pages
 * either — a wrong pin would break every download. To pin, run once on a trusted connection
 *   folio models pull <name> --trust-hub
 * and copy `revision` and the files' `size`/`sha256` from <models>/<folder>/folio-model.json
 * into the entry below (docs/limits.md, "Model downloads").
 */

export const CATALOG: readonly CatalogEntry[] = [
  {
    name: 'granite-docling',
    repo: 'onnx-community/granite-docling-258M-ONNX',
    folder: 'granite-docling-258M-ONNX',
    description: 'granite-docling-258M document VLM (page image → DocTags)',
    variants: true,
    // fp32 is ~1 GB in all (vision encoder ~374 MB, ../shared/FACTS.md); twice that leaves room.
    maxFileBytes: 1 * GiB,
    maxTotalBytes: 2 * GiB,
  },
  {
    name: 'heron',
    repo: 'docling-project/docling-layout-heron-onnx',
    folder: 'docling-layout-heron-onnx',
    description: 'docling-layout-heron layout detector (layout priors for the VLM)',
    variants: false,
    // RT-DETRv2 R50, 42 M parameters: ~170 MB in fp32.
    maxFileBytes: 512 * 1024 * 1024,
    maxTotalBytes: 512 * 1024 * 1024,
  },
];

export function findEntry(nameOrRepoOrFolder: string): CatalogEntry | undefined {
  return CATALOG.find(
    (e) => e.name === nameOrRepoOrFolder || e.repo === nameOrRepoOrFolder || e.folder === nameOrRepoOrFolder,
  );
}

/** `~/.cache/folio/models` (XDG_CACHE_HOME honoured), or FOLIO_MODELS when set. */
export function defaultModelsDir(): string {
  if (process.env.FOLIO_MODELS) return process.env.FOLIO_MODELS;
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'folio', 'models');
}

const ONNX_PARTS = ['vision_encoder', 'embed_tokens', 'decoder_model_merged'];

/**
 * Whether a repository path belongs to a download of `dtype`: every non-ONNX file (configs,
 * tokenizer, chat template), and for variant repos only the ONNX files of that variant with their
 * external data (`x.onnx_data`, `x.onnx_data_1`, …).
 */
export function wantedFile(entry: CatalogEntry, path: string, dtype: string): boolean {
  if (/(^|\/)\.|README|\.md$|\.gitattributes$/i.test(path)) return false;
  if (!entry.variants) return true;
  if (!path.startsWith('onnx/')) return !/\.(onnx|onnx_data.*)$/.test(path);
  const suffix = DTYPE_SUFFIX[dtype];
  return ONNX_PARTS.some((part) => {
    const base = `onnx/${part}${suffix}.onnx`;
    return path === base || path.startsWith(`${base}_data`);
  });
}
