/**
 * The MCP server's conversion cache, keyed by the file's content (SHA-256 of its bytes) and what
 * changes the conversion (pages, password): an agent asks for the same PDF again and again —
 * another format, a renamed copy, the next turn — and gets the earlier conversion at once. Keyed
 * by content, not by path or time stamp: an edited file is converted again, a copy is not. Held
 * in memory for the server's life (a stdio server lives as long as its client session), bounded
 * in entries and in characters; the least recently used goes first.
 */
import { createHash } from 'node:crypto';
import { sha256Hex } from '../../common/sha256';
import { createReadStream } from 'node:fs';
import type { ConvertSummary, PageResult } from '../../common/protocol';

export interface CachedConversion {
  summary: ConvertSummary;
  pages: PageResult[];
}

/** SHA-256 of a file, streamed (a large PDF is not read into memory at once). */
export function fileSha256(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    createReadStream(path)
      .on('data', (b) => h.update(b))
      .on('error', reject)
      .on('end', () => resolve(h.digest('hex')));
  });
}

export function cacheKey(contentSha256: string, opts: { pages?: string; password?: string }): string {
  // The password is part of the key (hashed): a conversion opened with it is not handed to a
  // call without it.
  const pw = opts.password === undefined ? '' : sha256Hex('folio-mcp\0' + opts.password);
  return `${contentSha256}\0${(opts.pages ?? '').replace(/\s+/g, '')}\0${pw}`;
}

function sizeOf(c: CachedConversion): number {
  let n = c.summary.markdown.length + c.summary.doctags.length;
  for (const p of c.pages) n += p.markdown.length + p.doctags.length + 200 * p.regions.length;
  return n;
}

export class ConversionCache {
  private readonly entries = new Map<string, { value: CachedConversion; size: number }>();
  private total = 0;
  /** Conversions served from the cache and conversions run, for the log and the tests. */
  hits = 0;
  misses = 0;

  constructor(
    private readonly maxEntries = 32,
    private readonly maxChars = 64_000_000,
  ) {}

  get(key: string): CachedConversion | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.entries.delete(key);
    this.entries.set(key, e); // most recently used last
    return e.value;
  }

  set(key: string, value: CachedConversion): void {
    const size = sizeOf(value);
    if (size > this.maxChars) return;
    const old = this.entries.get(key);
    if (old) {
      this.total -= old.size;
      this.entries.delete(key);
    }
    this.entries.set(key, { value, size });
    this.total += size;
    for (const [k, e] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.total <= this.maxChars) break;
      this.entries.delete(k);
      this.total -= e.size;
    }
  }
}
