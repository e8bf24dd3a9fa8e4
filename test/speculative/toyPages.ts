/**
 * Random toy pages for the algorithm tests: regions written like DocTags blocks over the toy
 * vocabulary (tag, four locations, text, closing tag, separator), the prompts that make the
 * ToyTarget read a page or one region, and the kinds of drafts a pipeline can produce.
 */
import { mulberry32 } from '../../server/speculative/random';
import { ToyTarget, TOY_VOCAB } from './toyTarget';
import type { RegionJob } from '../../server/speculative/hsd';

export const TAGS = [2, 3, 4, 5];
export const CLOSE = 6;
export const SEP = 7;
export const TEXT_MIN = 8;
export const TEXT_MAX = 47;

export interface ToyRegion {
  tag: number;
  locs: number[];
  text: number[];
}

export interface ToyPage {
  id: number;
  regions: ToyRegion[];
}

export function block(r: ToyRegion, text = r.text, locs = r.locs): number[] {
  return [r.tag, ...locs, ...text, CLOSE, SEP];
}

export function pageSource(p: ToyPage): number[] {
  return p.regions.flatMap((r) => block(r));
}

export function randomPage(id: number, rand: () => number): ToyPage {
  const n = 2 + Math.floor(rand() * 5);
  const words = Array.from({ length: 6 }, () =>
    Array.from({ length: 2 + Math.floor(rand() * 3) }, () => randText(rand)),
  );
  const regions: ToyRegion[] = [];
  for (let i = 0; i < n; i++) {
    const len = 4 + Math.floor(rand() * 30);
    const text: number[] = [];
    // Text reuses a few "words" so keys recur, like real prose.
    while (text.length < len)
      text.push(...(rand() < 0.5 ? words[Math.floor(rand() * words.length)] : [randText(rand)]));
    regions.push({
      tag: TAGS[Math.floor(rand() * TAGS.length)],
      locs: Array.from({ length: 4 }, () => TOY_VOCAB.locStart + Math.floor(rand() * TOY_VOCAB.locCount)),
      text: text.slice(0, len),
    });
  }
  return { id, regions };
}

function randText(rand: () => number): number {
  return TEXT_MIN + Math.floor(rand() * (TEXT_MAX - TEXT_MIN + 1));
}

export const pagePrompt = (p: ToyPage) => [0, 0, (p.id % 40) + 8];
export const regionPrompt = (p: ToyPage, r: number) => [0, 1, (p.id % 40) + 8, r + 8];

/** A toy model that reads the given pages (page prompt → whole page, region prompt → region text). */
export function toyModelFor(pages: ToyPage[], seed: number, workPerToken = 0, errorRate = 0.1): ToyTarget {
  const byKey = new Map<string, number[]>();
  for (const p of pages) {
    byKey.set(pagePrompt(p).join(','), pageSource(p));
    p.regions.forEach((r, i) => byKey.set(regionPrompt(p, i).join(','), r.text));
  }
  return new ToyTarget({
    seed,
    errorRate,
    workPerToken,
    sourceOf: (prompt) => {
      const s = byKey.get(prompt.join(','));
      if (!s) throw new Error(`toy model: unknown prompt ${prompt.join(',')}`);
      return s;
    },
  });
}

export type DraftKind = 'truth' | 'empty' | 'wrong' | 'repeated' | 'reordered' | 'cut' | 'jittered';
export const DRAFT_KINDS: DraftKind[] = ['truth', 'empty', 'wrong', 'repeated', 'reordered', 'cut', 'jittered'];

/** Pipeline-like drafts of `kind` for a page: page drafts plus one draft per region (Stage 1). */
export function makeDrafts(p: ToyPage, kind: DraftKind, rand: () => number): { page: number[][]; regions: number[][] } {
  const R = p.regions;
  switch (kind) {
    case 'truth':
      return { page: [pageSource(p)], regions: R.map((r) => r.text) };
    case 'empty':
      return { page: [], regions: R.map(() => []) };
    case 'wrong': {
      const junk = (n: number) => Array.from({ length: n }, () => randText(rand));
      return { page: [junk(60)], regions: R.map((r) => junk(r.text.length)) };
    }
    case 'repeated': {
      const rep = R.map((r) => [...r.text, ...r.text, ...r.text]);
      return { page: [R.flatMap((r, i) => block(r, rep[i]))], regions: rep };
    }
    case 'reordered': {
      const order = R.map((_, i) => i).sort(() => rand() - 0.5);
      return { page: [order.flatMap((i) => block(R[i]))], regions: R.map((r) => r.text) };
    }
    case 'cut': {
      // Cut inside a token: the draft ends with a different, shorter token (like a word split
      // by the tokenizer differently once its end is missing).
      const cut = (t: number[]) => {
        const k = Math.max(1, Math.floor(rand() * t.length));
        return [...t.slice(0, k - 1), t[k - 1] === TEXT_MAX ? TEXT_MIN : t[k - 1] + 1];
      };
      return { page: [cut(pageSource(p))], regions: R.map((r) => cut(r.text)) };
    }
    case 'jittered': {
      const j = (l: number) =>
        Math.min(
          TOY_VOCAB.locStart + TOY_VOCAB.locCount - 1,
          Math.max(TOY_VOCAB.locStart, l + (rand() < 0.5 ? -1 : 1)),
        );
      return { page: [R.flatMap((r) => block(r, r.text, r.locs.map(j)))], regions: R.map((r) => r.text) };
    }
  }
}

/** Stage 1 jobs for a page: the region prompt, its draft, and how to wrap its output into a block. */
export function regionJobs(p: ToyPage, regionDrafts: number[][]): RegionJob[] {
  return p.regions.map((r, i) => ({
    prompt: regionPrompt(p, i),
    drafts: regionDrafts[i].length > 0 ? [regionDrafts[i]] : [],
    wrap: (out: readonly number[]) => block(r, [...out]),
  }));
}

export function pages(count: number, seed: number): ToyPage[] {
  const rand = mulberry32(seed);
  return Array.from({ length: count }, (_, i) => randomPage(i, rand));
}
