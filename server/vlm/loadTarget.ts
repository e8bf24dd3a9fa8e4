/**
 * Opens a VLM model folder's text decoder as a speculative `TargetModel`, and the token
 * classes the matcher needs from its tokenizer. Used by the tiny-fixture tests and the wall-clock
 * benchmark; the VLM engine builds the same pieces from its own loaded sessions.
 */
import { createSession } from '../onnx/runtime';
import { loadVlmConfig } from './config';
import { DecoderSession, describeDecoder } from './decoder';
import { Tokenizer } from './tokenizer';
import { DecoderTarget } from './decoderTarget';
import type { TokenInfo } from '../speculative/types';

export interface LoadedTarget {
  target: DecoderTarget;
  tokenizer: Tokenizer;
  info: TokenInfo;
  stopIds: number[];
}

export async function loadDecoderTarget(
  dir: string,
  opts: { dtype?: string; threads?: number } = {},
): Promise<LoadedTarget> {
  const cfg = loadVlmConfig(dir, opts.dtype ?? 'fp32');
  const so = { providers: ['cpu'], threads: opts.threads ?? 1 };
  const [embed, decoder] = await Promise.all([
    createSession(cfg.files.embed, so),
    createSession(cfg.files.decoder, so),
  ]);
  const tokenizer = Tokenizer.fromFile(cfg.files.tokenizer);
  const stopIds = [...cfg.eosIds];
  const close = tokenizer.tryId('</doctag>');
  if (close !== undefined && !stopIds.includes(close)) stopIds.push(close);
  // Shapes from the graph where it fixes them (the tiny fixtures carry the real config.json).
  const io = describeDecoder(decoder.session, embed.session);
  const model = {
    decoder: decoder.session,
    embed: embed.session,
    io,
    shape: {
      layers: io.layers || cfg.text.layers,
      kvHeads: io.kvHeads ?? cfg.text.kvHeads,
      headDim: io.headDim ?? cfg.text.headDim,
      hidden: io.hidden ?? cfg.text.hidden,
    },
    padId: cfg.eosIds[0] ?? 0,
  };
  return {
    target: new DecoderTarget({ open: () => new DecoderSession(model) }),
    tokenizer,
    info: tokenInfoFor(tokenizer, stopIds),
    stopIds,
  };
}

/**
 * Token classes for the matcher. Locations: single `<loc_N>` tokens where the vocabulary has them
 * (the tiny oracle tokenizer); otherwise — granite-docling's real vocabulary — a location is the
 * BPE pieces `<` (or `><`) `loc` `_` `N` `>` (or `><`, or `>` merged with the text after it), and
 * `locationRoles` finds them by context; the value piece is the number token `N` (0–499 are single
 * tokens of cl100k). Stop tokens: the model's EOS ids.
 */
export function tokenInfoFor(tokenizer: Tokenizer, stopIds: readonly number[]): TokenInfo {
  const stops = new Set(stopIds);
  if (tokenizer.tryId('<loc_0>') !== undefined) {
    const locCache = new Map<number, number | undefined>();
    const location = (id: number) => {
      if (!locCache.has(id)) {
        const m = /^<loc_(\d+)>$/.exec(tokenizer.token(id) ?? '');
        locCache.set(id, m ? Number(m[1]) : undefined);
      }
      return locCache.get(id);
    };
    return {
      isLocation: (id) => location(id) !== undefined,
      isStop: (id) => stops.has(id),
      location,
      locationToken: (v) => tokenizer.tryId(`<loc_${v}>`),
    };
  }
  const pieces = locationPieces(tokenizer);
  return {
    // Per id, no piece is a location by itself (`<`, `_` and numbers occur in text): roles decide.
    isLocation: () => false,
    isStop: (id) => stops.has(id),
    location: (id) => pieces?.value.get(id),
    locationToken: (v) => pieces?.valueToken[v],
    locationRoles: pieces ? (tokens) => locationRoles(tokens, pieces) : undefined,
  };
}

/** The ids of a BPE vocabulary's location pieces; undefined when it lacks one of them. */
export interface LocationPieces {
  open: number; // '<'
  between: number; // '><'
  close: number; // '>'
  loc: number; // 'loc'
  underscore: number; // '_'
  /** number token id → grid value (0–499) */
  value: Map<number, number>;
  valueToken: number[];
  /** ids whose text starts with '>' (a location's end merged with what follows) */
  startsWithClose: (id: number) => boolean;
}

export function locationPieces(tokenizer: Tokenizer): LocationPieces | undefined {
  const ids = ['<', '><', '>', 'loc', '_'].map((t) => tokenizer.tryId(t));
  if (ids.some((i) => i === undefined)) return undefined;
  const value = new Map<number, number>();
  const valueToken: number[] = [];
  for (let v = 0; v < 500; v++) {
    const id = tokenizer.tryId(String(v));
    if (id === undefined) return undefined;
    value.set(id, v);
    valueToken[v] = id;
  }
  const cache = new Map<number, boolean>();
  const startsWithClose = (id: number) => {
    let r = cache.get(id);
    if (r === undefined) {
      r = !tokenizer.isAdded(id) && (tokenizer.token(id) ?? '').startsWith('>');
      cache.set(id, r);
    }
    return r;
  };
  const [open, between, close, loc, underscore] = ids as number[];
  return { open, between, close, loc, underscore, value, valueToken, startsWithClose };
}

/** See `TokenInfo.locationRoles`. */
export function locationRoles(tokens: readonly number[], p: LocationPieces): Int8Array {
  const n = tokens.length;
  const roles = new Int8Array(n).fill(-1);
  for (let i = 0; i < n; i++) {
    const t = tokens[i];
    if (t !== p.open && t !== p.between) continue;
    // `<` loc _ N then a piece starting with '>'; a prefix of that at the very end counts too.
    const want = [
      (x: number) => x === p.loc,
      (x: number) => x === p.underscore,
      (x: number) => p.value.has(x),
      (x: number) => p.startsWithClose(x),
    ];
    let ok = true;
    for (let k = 1; k <= 4 && i + k < n; k++) {
      if (!want[k - 1](tokens[i + k])) {
        ok = false;
        break;
      }
    }
    if (!ok) continue;
    roles[i] = 0;
    if (i + 1 < n) roles[i + 1] = 0;
    if (i + 2 < n) roles[i + 2] = 0;
    if (i + 3 < n) roles[i + 3] = 1;
    if (i + 4 < n && (tokens[i + 4] === p.close || tokens[i + 4] === p.between)) roles[i + 4] = 0;
  }
  return roles;
}
