/**
 * Stand-in for granite-docling's tokenizer in the oracle replay: cl100k BPE (js-tiktoken) for
 * text, plus every DocTags tag and every `<loc_N>` as one special token each. granite-docling's
 * vocabulary is cl100k-based with the DocTags tags added as special tokens; treating `<loc_N>` as
 * single tokens is an assumption (see FACTS.md: it may be several pieces in the real file), stated
 * wherever figures are printed. Token ids: cl100k ids as they are, tags from 200 000, locations
 * 300 000 + N.
 *
 * With `real` given (bench:spec `--tokenizer real`), the model's actual tokenizer is used
 * instead: granite-docling's assembled tokenizer.json, where the DocTags element tags are added
 * tokens but `<loc_N>` is several BPE pieces (and `<srow>`, `<inline>`, `<_Python_>` are text),
 * with its location pieces found by `TokenInfo.locationRoles`.
 *
 * Each token also carries a class, so the replay can say why a pass ended: location, tag, OTSL
 * cell tag, separator (whitespace/punctuation-only piece) or text, and whether it sits inside a
 * table or a formula.
 */
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { isVocabularyTag } from '../../server/doctags/vocab';
import type { TokenInfo } from '../../server/speculative/types';

export const TAG_BASE = 200_000;
export const LOC_BASE = 300_000;
/** Key symbols for "some opening tag" / "some closing tag" (see TokenInfo.keySymbol). */
const OPEN_SYMBOL = -10;
const CLOSE_SYMBOL = -11;

export type TokenKind = 'location' | 'tag' | 'cell' | 'separator' | 'text';

export interface TokenizedDocTags {
  ids: number[];
  kinds: TokenKind[];
  /** The innermost element each token is in (`otsl`, `formula`, `text`, …; '' outside elements). */
  context: string[];
}

const TAG_RE = /<(\/?)(loc_\d+|_[^<>\s]*_|[a-z][a-z0-9_]*)>/g;
const OTSL_CELLS = new Set(['fcel', 'ecel', 'lcel', 'ucel', 'xcel', 'ched', 'rhed', 'srow', 'nl']);
/** Elements that hold others: a token inside them belongs to the inner element. */
const CONTAINERS = new Set(['doctag', 'ordered_list', 'unordered_list']);

/** The model's tokenizer as the oracle needs it (server/vlm/tokenizer.ts `Tokenizer` fits). */
export interface RealTokenizer {
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
  token(id: number): string | undefined;
  isAdded(id: number): boolean;
  id(token: string): number;
}

export class DocTagsTokenizer {
  private readonly bpe = new Tiktoken(cl100k);
  /**
   * `real`: tokenize with the model's own tokenizer, `info` its token classes (from
   * vlm/loadTarget.ts `tokenInfoFor`, built by the caller).
   */
  constructor(private readonly real?: { tok: RealTokenizer; info: TokenInfo }) {}

  /** Which tokenizer this is, for printed tables. */
  get label(): string {
    return this.real
      ? "granite-docling's real tokenizer (<loc_N> = several BPE pieces)"
      : 'stand-in: cl100k + every tag and <loc_N> as one token';
  }
  private readonly tagIds = new Map<string, number>();
  private readonly tagNames: string[] = [];
  private readonly memo = new Map<string, number[]>();

  /** `<|end_of_text|>`: ends a Stage 1 region output (region prompts are not wrapped in `<doctag>`). */
  get endId(): number {
    return this.real ? this.real.tok.id('<|end_of_text|>') : this.tagId('<|end_of_text|>');
  }

  /** A region output: its content tokens followed by the end token. */
  encodeRegion(content: string): TokenizedDocTags {
    const t = this.encode(content);
    return { ids: [...t.ids, this.endId], kinds: [...t.kinds, 'tag'], context: [...t.context, ''] };
  }

  /** The id of a tag token such as `<text>` or `</text>`. */
  tagId(token: string): number {
    let id = this.tagIds.get(token);
    if (id === undefined) {
      id = TAG_BASE + this.tagNames.length;
      this.tagIds.set(token, id);
      this.tagNames.push(token);
    }
    return id;
  }

  tagName(id: number): string | undefined {
    return id >= TAG_BASE && id < LOC_BASE ? this.tagNames[id - TAG_BASE] : undefined;
  }

  encodeText(text: string): number[] {
    if (text.length === 0) return [];
    let ids = this.memo.get(text);
    if (!ids) {
      ids = this.bpe.encode(text, [], []);
      if (this.memo.size < 200_000) this.memo.set(text, ids);
    }
    return ids;
  }

  decode(ids: readonly number[]): string {
    if (this.real) return this.real.tok.decode(ids);
    let out = '';
    let run: number[] = [];
    const flush = () => {
      if (run.length) out += this.bpe.decode(run);
      run = [];
    };
    for (const id of ids) {
      if (id >= LOC_BASE) {
        flush();
        out += `<loc_${id - LOC_BASE}>`;
      } else if (id >= TAG_BASE) {
        flush();
        out += this.tagNames[id - TAG_BASE] ?? '<?>';
      } else run.push(id);
    }
    flush();
    return out;
  }

  encode(doctags: string): TokenizedDocTags {
    if (this.real) return this.encodeReal(doctags);
    const ids: number[] = [];
    const kinds: TokenKind[] = [];
    const context: string[] = [];
    const stack: string[] = [];
    const inner = () => {
      for (let i = stack.length - 1; i >= 0; i--) if (!CONTAINERS.has(stack[i])) return stack[i];
      return '';
    };
    const pushText = (text: string) => {
      for (const id of this.encodeText(text)) {
        ids.push(id);
        const piece = this.bpe.decode([id]);
        kinds.push(/^[\s\p{P}\p{S}]*$/u.test(piece) ? 'separator' : 'text');
        context.push(inner());
      }
    };
    let last = 0;
    for (const m of doctags.matchAll(TAG_RE)) {
      const [whole, slash, name] = m;
      const isLoc = name.startsWith('loc_');
      const isLang = name.startsWith('_');
      if (!isLoc && !isLang && !isVocabularyTag(name)) continue; // literal text that looks like a tag
      pushText(doctags.slice(last, m.index));
      last = m.index! + whole.length;
      if (isLoc) {
        ids.push(LOC_BASE + Number(name.slice(4)));
        kinds.push('location');
        context.push(inner());
        continue;
      }
      ids.push(this.tagId(whole));
      kinds.push(OTSL_CELLS.has(name) ? 'cell' : 'tag');
      if (slash) {
        context.push(inner());
        const at = stack.lastIndexOf(name);
        if (at >= 0) stack.length = at;
      } else if (!OTSL_CELLS.has(name) && !isLang && name !== 'page_break') {
        stack.push(name);
        context.push(inner());
      } else context.push(inner());
    }
    pushText(doctags.slice(last));
    return { ids, kinds, context };
  }

  /** `encode` with the real tokenizer: classes from added tags and location roles. */
  private encodeReal(doctags: string): TokenizedDocTags {
    const { tok, info } = this.real!;
    const ids = tok.encode(doctags);
    const roles = info.locationRoles
      ? info.locationRoles(ids)
      : Int8Array.from(ids, (id) => (info.isLocation(id) ? 1 : -1));
    const kinds: TokenKind[] = [];
    const context: string[] = [];
    const stack: string[] = [];
    const inner = () => {
      for (let i = stack.length - 1; i >= 0; i--) if (!CONTAINERS.has(stack[i])) return stack[i];
      return '';
    };
    ids.forEach((id, i) => {
      const piece = tok.token(id) ?? '';
      if (roles[i] >= 0) kinds.push('location');
      else if (tok.isAdded(id)) {
        const m = /^<(\/?)([a-z][a-z0-9_]*)>$/.exec(piece);
        const name = m?.[2] ?? '';
        kinds.push(OTSL_CELLS.has(name) ? 'cell' : 'tag');
        if (m && m[1]) {
          context.push(inner());
          const at = stack.lastIndexOf(name);
          if (at >= 0) stack.length = at;
          return;
        }
        if (m && !OTSL_CELLS.has(name) && name !== 'page_break') stack.push(name);
      } else kinds.push(/^[\s\p{P}\p{S}]*$/u.test(tok.decode([id])) ? 'separator' : 'text');
      context.push(inner());
    });
    return { ids, kinds, context };
  }

  /** Matcher token classes: locations are wildcards, opening/closing element tags match any tag. */
  tokenInfo(opts: { tagWildcards: boolean }): TokenInfo {
    if (this.real) {
      const { tok, info } = this.real;
      return {
        ...info,
        keySymbol: opts.tagWildcards
          ? (id) => {
              if (!tok.isAdded(id)) return id;
              const name = tok.token(id) ?? '';
              if (!/^<\/?[a-z]/.test(name) || !isElementTag(name)) return id;
              return name.startsWith('</') ? CLOSE_SYMBOL : OPEN_SYMBOL;
            }
          : undefined,
      };
    }
    const end = this.tagId('</doctag>');
    const eot = this.endId;
    return {
      isLocation: (id) => id >= LOC_BASE,
      isStop: (id) => id === end || id === eot,
      location: (id) => (id >= LOC_BASE ? id - LOC_BASE : undefined),
      locationToken: (v) => (v >= 0 && v < 500 ? LOC_BASE + v : undefined),
      keySymbol: opts.tagWildcards
        ? (id) => {
            const name = this.tagName(id);
            if (!name || !isElementTag(name)) return id;
            return name.startsWith('</') ? CLOSE_SYMBOL : OPEN_SYMBOL;
          }
        : undefined,
    };
  }
}

/** Element tags (text, title, section_header_level_N, caption, …), not cells, lists or doctag. */
function isElementTag(token: string): boolean {
  const name = token.replace(/^<\/?|>$/g, '');
  return !OTSL_CELLS.has(name) && !CONTAINERS.has(name) && name !== 'page_break' && !name.startsWith('_');
}
