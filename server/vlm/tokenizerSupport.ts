/**
 * What of a Hugging Face `tokenizer.json` Folio's byte-level BPE reader (tokenizer.ts) implements,
 * and a refusal naming the field for anything else. Reading a normalizer, pre-tokenizer step or
 * decoder Folio does not apply would silently give other ids than the model's own tokenizer.
 *
 * Implemented:
 *  - `normalizer`: none (null or absent);
 *  - `pre_tokenizer`: none (GPT-2's split rule), `ByteLevel` with `use_regex` true (GPT-2's rule)
 *    and no prefix space, `Split` with a regex or string pattern, behaviour `Isolated`, not
 *    inverted, or a `Sequence` of one such `Split` followed by `ByteLevel` with `use_regex` false
 *    and no prefix space (the cl100k layout granite-docling's files assume);
 *  - `decoder`: none or `ByteLevel`;
 *  - `model`: `BPE` without byte fallback, dropout or word prefixes/suffixes.
 */
import { FolioError } from '../errors';
import { FolioErrorCodes } from '../../common/protocol';

export interface PreTokenizerJson {
  type: string;
  pattern?: { Regex?: string; String?: string };
  behavior?: string;
  invert?: boolean;
  add_prefix_space?: boolean;
  use_regex?: boolean;
  pretokenizers?: PreTokenizerJson[];
}

interface CheckedJson {
  normalizer?: { type?: string } | null;
  pre_tokenizer?: PreTokenizerJson | null;
  decoder?: { type?: string } | null;
  model?: {
    type?: string;
    byte_fallback?: boolean;
    dropout?: number | null;
    continuing_subword_prefix?: string | null;
    end_of_word_suffix?: string | null;
  };
}

function refuse(source: string, field: string, what: string): never {
  throw new FolioError(
    FolioErrorCodes.ModelError,
    `${source}: ${field} ${what} is not supported by Folio's tokenizer, so its ids would differ from the model's own tokenizer. Use the model's published tokenizer.json (byte-level BPE), or report the model to Folio.`,
  );
}

function checkSplit(source: string, field: string, p: PreTokenizerJson): void {
  if (!p.pattern || (p.pattern.Regex === undefined && p.pattern.String === undefined))
    refuse(source, field, 'Split without a pattern');
  if ((p.behavior ?? 'Isolated') !== 'Isolated') refuse(source, `${field}.behavior`, `"${p.behavior}"`);
  if (p.invert) refuse(source, `${field}.invert`, 'true');
}

function checkByteLevel(source: string, field: string, p: PreTokenizerJson, useRegex: boolean): void {
  if (p.add_prefix_space) refuse(source, `${field}.add_prefix_space`, 'true');
  if ((p.use_regex ?? true) !== useRegex) refuse(source, `${field}.use_regex`, String(p.use_regex ?? true));
}

/** Throws a FolioError naming the first field of `json` that tokenizer.ts does not implement. */
export function checkTokenizerSupport(json: CheckedJson, source: string): void {
  if (json.normalizer) refuse(source, 'normalizer', `"${json.normalizer.type ?? '?'}"`);
  const pre = json.pre_tokenizer;
  if (pre) {
    if (pre.type === 'Split') checkSplit(source, 'pre_tokenizer', pre);
    else if (pre.type === 'ByteLevel') checkByteLevel(source, 'pre_tokenizer', pre, true);
    else if (pre.type === 'Sequence') {
      const steps = pre.pretokenizers ?? [];
      const names = steps.map((s) => s.type).join(', ');
      if (steps.length !== 2 || steps[0].type !== 'Split' || steps[1].type !== 'ByteLevel')
        refuse(source, 'pre_tokenizer', `Sequence [${names}] (only [Split, ByteLevel] is)`);
      checkSplit(source, 'pre_tokenizer.pretokenizers[0]', steps[0]);
      checkByteLevel(source, 'pre_tokenizer.pretokenizers[1]', steps[1], false);
    } else refuse(source, 'pre_tokenizer', `"${pre.type}"`);
  }
  const dec = json.decoder;
  if (dec && dec.type !== 'ByteLevel') refuse(source, 'decoder', `"${dec.type ?? '?'}"`);
  const m = json.model;
  if (m?.byte_fallback) refuse(source, 'model.byte_fallback', 'true');
  if (m?.dropout) refuse(source, 'model.dropout', String(m.dropout));
  if (m?.continuing_subword_prefix)
    refuse(source, 'model.continuing_subword_prefix', `"${m.continuing_subword_prefix}"`);
  if (m?.end_of_word_suffix) refuse(source, 'model.end_of_word_suffix', `"${m.end_of_word_suffix}"`);
}
