/**
 * One oracle measurement: a page, a mode (`page` or `hsd`), a candidate cap K and a way of
 * writing the drafts (the "variant": how far the pipeline's output is brought to the model's
 * form). Returns pass counts and the causes of lost passes.
 */
import {
  blockToDocTags,
  mergeBulletBlocks,
  normalizeBlockContent,
  type DraftBlock,
} from '../../server/speculative/draftText';
import type { DecodeOptions } from '../../server/speculative/types';
import { assemblePage, type OraclePage } from './corpusPages';
import type { DocTagsTokenizer } from './doctagsTokenizer';
import { addStats, emptyStats, replaySequence, type ReplayStats } from './replay';

export interface DraftVariant {
  name: string;
  /** Drafts are the page's text only (no tags, no locations): the plain text-layer baseline. */
  plainText?: boolean;
  /** NFKC, soft hyphens / private-use glyphs / list markers dropped, lines unwrapped. */
  normalize?: boolean;
  /** Opening/closing element tags match any tag in keys (pipeline class errors cost one pass). */
  tagWildcards?: boolean;
  /** Also propose boxes ± this many grid steps (MatchOptions.locSpread). */
  locSpread?: number;
  /** Move drafted boxes by the model's observed offsets (MatchOptions.calibrateBoxes). */
  calibrateBoxes?: boolean;
  /** A lone bullet block + the next block → one list item (draftText.mergeBulletBlocks). */
  mergeBullets?: boolean;
}

export const VARIANTS: DraftVariant[] = [
  { name: 'plain text (no tags)', plainText: true, normalize: true },
  { name: 'DocTags as the pipeline writes them' },
  { name: '+ normalized text', normalize: true },
  { name: '+ tag wildcards in keys', normalize: true, tagWildcards: true },
  { name: '+ nearby boxes (±1)', normalize: true, tagWildcards: true, locSpread: 1 },
  { name: '+ box calibration', normalize: true, tagWildcards: true, locSpread: 1, calibrateBoxes: true },
  {
    name: '+ bullets merged into list items',
    normalize: true,
    tagWildcards: true,
    locSpread: 1,
    calibrateBoxes: true,
    mergeBullets: true,
  },
  {
    name: '+ nearby boxes (±3)',
    normalize: true,
    tagWildcards: true,
    locSpread: 3,
    calibrateBoxes: true,
    mergeBullets: true,
  },
];

export interface PageReplay {
  /** Target tokens (the page the model writes). */
  tokens: number;
  /** Passes autoregressive decoding needs (one per token after the first). */
  arPasses: number;
  stats: ReplayStats;
  stage1Passes: number;
}

function blocksFor(page: OraclePage, v: DraftVariant): (DraftBlock & { list?: string })[] {
  const blocks = v.mergeBullets ? mergeBulletBlocks(page.pipeline) : page.pipeline;
  return v.normalize ? blocks.map((b) => ({ ...b, content: normalizeBlockContent(b.tag, b.content) })) : blocks;
}

export function replayPage(
  tok: DocTagsTokenizer,
  page: OraclePage,
  mode: 'page' | 'hsd',
  K: number,
  v: DraftVariant,
  opts: DecodeOptions = {},
): PageReplay {
  const info = tok.tokenInfo({ tagWildcards: v.tagWildcards === true });
  const o: DecodeOptions = { ...opts, K, locSpread: v.locSpread ?? 0, calibrateBoxes: v.calibrateBoxes === true };
  const target = tok.encode(page.target);
  const blocks = blocksFor(page, v);
  const pageDraft = v.plainText
    ? blocks.map((b) => b.content.replace(/<[^<>]+>/g, ' ')).join('\n')
    : assemblePage(blocks);
  const drafts = [tok.encode(pageDraft).ids];
  let stage1Passes = 0;
  if (mode === 'hsd') {
    // Stage 1: every region decoded in lock-step; the batch needs as many passes as its longest member.
    let s1 = emptyStats();
    for (const r of page.regions) {
      const content = v.normalize ? normalizeBlockContent(r.region.tag, r.region.content) : r.region.content;
      const draft = v.plainText ? content.replace(/<[^<>]+>/g, ' ') : content;
      const st = replaySequence(tok.encodeRegion(r.target), [tok.encode(draft).ids], info, o);
      stage1Passes = Math.max(stage1Passes, st.passes);
      s1 = addStats(s1, st);
    }
    // Stage 2 drafts: the Stage 1 outputs wrapped back into the pipeline's blocks, then the page draft.
    const wrapped = page.regions.map((r) => tok.encode(blockToDocTags({ ...r.region, content: r.target })).ids);
    drafts.unshift(...wrapped);
  }
  const stats = replaySequence(target, drafts, info, o);
  return { tokens: target.ids.length, arPasses: target.ids.length - 1, stats, stage1Passes };
}
