/**
 * Opens a VLM model folder's text decoder as a speculative `TargetModel`, and the token
 * classes the matcher needs from its tokenizer. Used by the tiny-fixture tests and the wall-clock
 * benchmark; the VLM engine builds the same pieces from its own loaded sessions.
 */
import { createSession } from '../onnx/runtime';
import { loadVlmConfig } from '../vlm/config';
import { DecoderSession, describeDecoder } from '../vlm/decoder';
import { Tokenizer } from '../vlm/tokenizer';
import { DecoderTarget } from './decoderTarget';
import type { TokenInfo } from './types';

export interface LoadedTarget {
  target: DecoderTarget;
  tokenizer: Tokenizer;
  info: TokenInfo;
  stopIds: number[];
}

export async function loadDecoderTarget(dir: string, opts: { dtype?: string; threads?: number } = {}): Promise<LoadedTarget> {
  const cfg = loadVlmConfig(dir, opts.dtype ?? 'fp32');
  const so = { providers: ['cpu'], threads: opts.threads ?? 1 };
  const [embed, decoder] = await Promise.all([createSession(cfg.files.embed, so), createSession(cfg.files.decoder, so)]);
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
    shape: { layers: io.layers || cfg.text.layers, kvHeads: io.kvHeads ?? cfg.text.kvHeads, headDim: io.headDim ?? cfg.text.headDim, hidden: io.hidden ?? cfg.text.hidden },
    padId: cfg.eosIds[0] ?? 0,
  };
  return {
    target: new DecoderTarget({ open: () => new DecoderSession(model) }),
    tokenizer,
    info: tokenInfoFor(tokenizer, stopIds),
    stopIds,
  };
}

/** Location tokens are `<loc_N>` vocabulary entries; stop tokens the model's EOS ids. */
export function tokenInfoFor(tokenizer: Tokenizer, stopIds: readonly number[]): TokenInfo {
  const locCache = new Map<number, number | undefined>();
  const location = (id: number) => {
    if (!locCache.has(id)) {
      const m = /^<loc_(\d+)>$/.exec(tokenizer.token(id) ?? '');
      locCache.set(id, m ? Number(m[1]) : undefined);
    }
    return locCache.get(id);
  };
  const stops = new Set(stopIds);
  return {
    isLocation: (id) => location(id) !== undefined,
    isStop: (id) => stops.has(id),
    location,
    locationToken: (v) => tokenizer.tryId(`<loc_${v}>`),
  };
}
