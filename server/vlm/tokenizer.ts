/**
 * A Hugging Face `tokenizer.json` reader for byte-level BPE tokenizers (GPT-2 / cl100k family,
 * which granite-docling's is): added tokens matched first (longest match wins), then the
 * pre-tokenizer's Split regex, the byte → printable-character map, BPE merges by rank.
 * Decoding maps ids back to strings; added tokens are written as-is, the rest byte-decoded.
 *
 * Written for Folio (no tokenizers/transformers dependency); the speculative decoder uses the
 * same class to tokenize drafts, so `encode(decode(ids))` must give `ids` back for the outputs
 * the model writes (tested).
 */
import { readFileSync } from 'node:fs';
import { FolioError } from '../errors';
import { FolioErrorCodes } from '../../common/protocol';
import { checkTokenizerSupport, type PreTokenizerJson } from './tokenizerSupport';

interface AddedToken {
  id: number;
  content: string;
  special?: boolean;
}

interface TokenizerJson {
  added_tokens?: AddedToken[];
  normalizer?: { type?: string } | null;
  pre_tokenizer?: PreTokenizer | null;
  decoder?: { type?: string } | null;
  model: { type: string; vocab: Record<string, number>; merges: (string | [string, string])[] };
}

type PreTokenizer = PreTokenizerJson;

/** GPT-2's byte-level pre-tokenization regex, used when tokenizer.json names none. */
const GPT2_PATTERN = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

function byteTable(): { enc: string[]; dec: Map<string, number> } {
  const printable = (b: number) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
  const enc: string[] = new Array(256);
  let extra = 0;
  for (let b = 0; b < 256; b++) enc[b] = printable(b) ? String.fromCharCode(b) : String.fromCharCode(256 + extra++);
  return { enc, dec: new Map(enc.map((c, b) => [c, b])) };
}

/**
 * JavaScript regexes (Node 20) lack scoped flags such as `(?i:…)`, which cl100k-style patterns
 * use for contractions. Rewrite each such group by spelling every letter as a two-case class.
 */
export function toJsPattern(pattern: string): string {
  return pattern.replace(/\(\?i:((?:[^()\\]|\\.)*)\)/g, (_m, body: string) => {
    let out = '';
    for (let i = 0; i < body.length; i++) {
      const ch = body[i];
      if (ch === '\\') {
        out += ch + body[++i];
      } else if (/[a-z]/i.test(ch)) out += `[${ch.toLowerCase()}${ch.toUpperCase()}]`;
      else out += ch;
    }
    return `(?:${out})`;
  });
}

function findSplitPattern(p: PreTokenizer | null | undefined): string | undefined {
  if (!p) return undefined;
  if (p.type === 'Split' && p.pattern) return p.pattern.Regex ?? escapeRegex(p.pattern.String ?? '');
  for (const sub of p.pretokenizers ?? []) {
    const found = findSplitPattern(sub);
    if (found) return found;
  }
  return undefined;
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export class Tokenizer {
  readonly vocabSize: number;
  private readonly vocab: Map<string, number>;
  private readonly idToToken: string[];
  private readonly added: Map<string, number>;
  private readonly addedIds = new Set<number>();
  private readonly specialIds = new Set<number>();
  private readonly addedRegex: RegExp | undefined;
  private readonly splitRegex: RegExp;
  private readonly ranks: Map<string, number>;
  private readonly bytes = byteTable();
  private readonly cache = new Map<string, number[]>();

  constructor(
    json: TokenizerJson,
    readonly source = 'tokenizer.json',
  ) {
    if (!json.model || json.model.type !== 'BPE' || !json.model.vocab) {
      throw new FolioError(
        FolioErrorCodes.ModelError,
        `${source} is not a byte-level BPE tokenizer (model.type ${json.model?.type}); download the model again.`,
      );
    }
    checkTokenizerSupport(json, source);
    this.vocab = new Map(Object.entries(json.model.vocab));
    this.added = new Map();
    for (const a of json.added_tokens ?? []) {
      this.added.set(a.content, a.id);
      this.addedIds.add(a.id);
      if (a.special) this.specialIds.add(a.id);
    }
    let max = 0;
    for (const id of this.vocab.values()) max = Math.max(max, id);
    for (const id of this.added.values()) max = Math.max(max, id);
    this.vocabSize = max + 1;
    this.idToToken = new Array(this.vocabSize);
    for (const [t, id] of this.vocab) this.idToToken[id] = t;
    for (const [t, id] of this.added) this.idToToken[id] = t;
    this.ranks = new Map();
    json.model.merges.forEach((m, i) => {
      const [a, b] = Array.isArray(m) ? m : splitMerge(m);
      this.ranks.set(`${a} ${b}`, i);
    });
    const addedList = [...this.added.keys()].sort((a, b) => b.length - a.length);
    this.addedRegex = addedList.length ? new RegExp(addedList.map(escapeRegex).join('|'), 'g') : undefined;
    this.splitRegex = new RegExp(toJsPattern(findSplitPattern(json.pre_tokenizer) ?? GPT2_PATTERN), 'gu');
  }

  static fromFile(path: string): Tokenizer {
    let json: TokenizerJson;
    try {
      json = JSON.parse(readFileSync(path, 'utf8')) as TokenizerJson;
    } catch (e) {
      throw new FolioError(
        FolioErrorCodes.ModelError,
        `Cannot read the tokenizer ${path}: ${(e as Error).message}. Run "Folio: Download models" (or \`folio models pull\`) again.`,
      );
    }
    return new Tokenizer(json, path);
  }

  /** Id of a token string (added or vocabulary); throws when absent. */
  id(token: string): number {
    const v = this.added.get(token) ?? this.vocab.get(token);
    if (v === undefined) throw new FolioError(FolioErrorCodes.ModelError, `${this.source} has no token ${token}`);
    return v;
  }

  /** Id of a token string, or undefined. */
  tryId(token: string): number | undefined {
    return this.added.get(token) ?? this.vocab.get(token);
  }

  /** The raw token string of an id (byte-level characters for BPE tokens). */
  token(id: number): string | undefined {
    return this.idToToken[id];
  }

  isSpecial(id: number): boolean {
    return this.specialIds.has(id);
  }

  isAdded(id: number): boolean {
    return this.addedIds.has(id);
  }

  encode(text: string): number[] {
    const out: number[] = [];
    let last = 0;
    if (this.addedRegex) {
      this.addedRegex.lastIndex = 0;
      for (let m = this.addedRegex.exec(text); m; m = this.addedRegex.exec(text)) {
        if (m.index > last) this.encodeOrdinary(text.slice(last, m.index), out);
        out.push(this.added.get(m[0])!);
        last = m.index + m[0].length;
      }
    }
    if (last < text.length) this.encodeOrdinary(text.slice(last), out);
    return out;
  }

  decode(ids: readonly number[], opts: { skipSpecial?: boolean } = {}): string {
    let text = '';
    let pending: number[] = [];
    const flush = () => {
      if (pending.length) text += Buffer.from(pending).toString('utf8');
      pending = [];
    };
    for (const id of ids) {
      const tok = this.idToToken[id];
      if (tok === undefined) continue;
      if (this.addedIds.has(id)) {
        flush();
        if (!(opts.skipSpecial && this.specialIds.has(id))) text += tok;
        continue;
      }
      for (const ch of tok) {
        const b = this.bytes.dec.get(ch);
        if (b !== undefined) pending.push(b);
      }
    }
    flush();
    return text;
  }

  private encodeOrdinary(text: string, out: number[]): void {
    this.splitRegex.lastIndex = 0;
    for (const m of text.matchAll(this.splitRegex)) {
      const piece = m[0];
      if (!piece) continue;
      const cached = this.cache.get(piece);
      if (cached) {
        out.push(...cached);
        continue;
      }
      const mapped = [...Buffer.from(piece, 'utf8')].map((b) => this.bytes.enc[b]).join('');
      const ids = this.bpe(mapped);
      if (this.cache.size < 50000) this.cache.set(piece, ids);
      out.push(...ids);
    }
  }

  /** Classic BPE: repeatedly merge the adjacent pair with the lowest merge rank. */
  private bpe(word: string): number[] {
    const direct = this.vocab.get(word);
    if (direct !== undefined) return [direct];
    let parts = [...word];
    while (parts.length > 1) {
      let best = -1;
      let bestRank = Infinity;
      for (let i = 0; i < parts.length - 1; i++) {
        const r = this.ranks.get(`${parts[i]} ${parts[i + 1]}`);
        if (r !== undefined && r < bestRank) {
          bestRank = r;
          best = i;
        }
      }
      if (best < 0) break;
      const merged = parts[best] + parts[best + 1];
      const next: string[] = [];
      for (let i = 0; i < parts.length; i++) {
        if (i < parts.length - 1 && parts[i] === parts[best] && parts[i + 1] === parts[best + 1]) {
          next.push(merged);
          i++;
        } else next.push(parts[i]);
      }
      parts = next;
    }
    const ids: number[] = [];
    for (const p of parts) {
      const id = this.vocab.get(p);
      if (id !== undefined) ids.push(id);
      else
        for (const ch of p) {
          const c = this.vocab.get(ch);
          if (c !== undefined) ids.push(c);
        }
    }
    return ids;
  }
}

function splitMerge(m: string): [string, string] {
  const i = m.indexOf(' ', 1);
  return [m.slice(0, i), m.slice(i + 1)];
}
