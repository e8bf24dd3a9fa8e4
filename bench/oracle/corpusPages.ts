/**
 * Oracle pages from the shared corpus: for each page, the target DocTags (what the VLM is
 * assumed to write), the pipeline's DocTags for that page (the drafts), and the Stage 1 region
 * targets (what the VLM writes for each pipeline region's crop).
 *
 * Targets: docling/pdf ships real DocTags (`.doctags.txt`, Docling's own boxes). The other sets
 * have Markdown ground truth: its blocks (mdTarget.ts) are matched to pipeline regions by word
 * containment and take the matched region's box, moved the way a model's boxes differ from a
 * pipeline's: a steady per-document offset per coordinate (seeded, −2…+2 grid steps: padding and
 * rounding conventions) plus a ±1 step on a seeded 20% of values. Blocks the pipeline missed get
 * seeded random boxes (undraftable, as they would be).
 */
import { parseDraftBlocks, type DraftBlock } from '../../server/speculative/draftText';
import { mulberry32 } from '../../server/speculative/random';
import { markdownToBlocks, type TargetBlock } from './mdTarget';

export interface RegionTarget {
  /** The pipeline region (its tag, locations and raw content). */
  region: DraftBlock;
  /** What the model writes for the region's crop: the ground-truth content it covers. */
  target: string;
}

export interface OraclePage {
  set: string;
  file: string;
  page: number;
  scanned: boolean;
  /** Target DocTags of the page, `<doctag>…\n</doctag>`. */
  target: string;
  /** The pipeline's blocks for the page in its reading order. */
  pipeline: DraftBlock[];
  regions: RegionTarget[];
}

/** Pages of a whole-document DocTags string (split at `<page_break>`), wrappers removed. */
export function splitPages(doctags: string): string[] {
  return doctags
    .replace(/^\s*<doctag>/, '')
    .replace(/<\/doctag>\s*$/, '')
    .split(/\n?<page_break>\n?/);
}

export function words(s: string): string[] {
  return s
    .replace(/<[^<>]+>/g, ' ')
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
}

/** Share of `a`'s words found in `b`'s word multiset. */
function containment(a: string[], b: Map<string, number>): number {
  if (a.length === 0) return 0;
  const left = new Map(b);
  let hit = 0;
  for (const w of a) {
    const n = left.get(w) ?? 0;
    if (n > 0) {
      hit++;
      left.set(w, n - 1);
    }
  }
  return hit / a.length;
}

function bag(ws: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const w of ws) m.set(w, (m.get(w) ?? 0) + 1);
  return m;
}

interface Located {
  page: number;
  index: number;
}

/**
 * For each ground-truth block, the pipeline region that contains most of its words (≥ 50%),
 * preferring regions at or after the previous match (documents run forward).
 */
function assign(gt: { plain: string }[], regions: { page: number; block: DraftBlock }[]): (Located | undefined)[] {
  const bags = regions.map((r) => bag(words(r.block.content)));
  let cursor = 0;
  return gt.map((g) => {
    const ws = words(g.plain);
    if (ws.length === 0) return undefined;
    let best = -1;
    let bestScore = 0.5;
    for (let i = 0; i < regions.length; i++) {
      const s = containment(ws, bags[i]) - (i < cursor ? 0.05 : 0);
      if (s > bestScore) {
        bestScore = s;
        best = i;
      }
    }
    if (best < 0) return undefined;
    cursor = best;
    return { page: regions[best].page, index: best };
  });
}

function jitter(locs: string, offset: readonly number[], rand: () => number): string {
  let c = 0;
  return locs.replace(/<loc_(\d+)>/g, (_, n) => {
    const noise = rand() < 0.2 ? (rand() < 0.5 ? -1 : 1) : 0;
    return `<loc_${Math.min(499, Math.max(0, Number(n) + offset[c++ % 4] + noise))}>`;
  });
}

function randomLocs(rand: () => number): string {
  const v = () => Math.floor(rand() * 500);
  return `<loc_${v()}><loc_${v()}><loc_${v()}><loc_${v()}>`;
}

/** Blocks → a page as docling writes it (list items grouped, one element per line). */
export function assemblePage(blocks: { tag: string; locs: string; content: string; list?: string }[]): string {
  const lines: string[] = [];
  let open: string | undefined;
  for (const b of blocks) {
    const el = `<${b.tag}>${b.locs}${b.content}</${b.tag}>`;
    if (b.tag === 'list_item') {
      const kind = b.list ?? 'unordered_list';
      if (open !== kind) {
        if (open) lines.push(`</${open}>`);
        open = kind;
        lines.push(`<${kind}>${el}`);
      } else lines.push(el);
      continue;
    }
    if (open) lines.push(`</${open}>`);
    open = undefined;
    lines.push(el);
  }
  if (open) lines.push(`</${open}>`);
  return '<doctag>' + lines.join('\n') + '\n</doctag>';
}

function regionTargets(pipeline: DraftBlock[], gt: { content: string; at?: number }[]): RegionTarget[] {
  return pipeline.flatMap((region, i) => {
    const mine = gt.filter((g) => g.at === i).map((g) => g.content);
    return mine.length > 0 ? [{ region, target: mine.join(' ') }] : [];
  });
}

/** Oracle pages for a PDF whose ground truth is DocTags (docling/pdf). */
export function pagesFromDocTags(
  set: string,
  file: string,
  targetDocTags: string,
  pipelineDocTags: string,
  scanned: boolean,
): OraclePage[] {
  const targets = splitPages(targetDocTags);
  const pipes = splitPages(pipelineDocTags);
  const out: OraclePage[] = [];
  for (let p = 0; p < Math.min(targets.length, pipes.length); p++) {
    const pipeline = parseDraftBlocks(pipes[p]);
    const gtBlocks = parseDraftBlocks(targets[p]);
    const at = assign(
      gtBlocks.map((b) => ({ plain: b.content })),
      pipeline.map((block) => ({ page: p, block })),
    );
    const target = '<doctag>' + targets[p].trim() + '\n</doctag>';
    out.push({
      set,
      file,
      page: p + 1,
      scanned,
      target,
      pipeline,
      regions: regionTargets(
        pipeline,
        gtBlocks.map((b, i) => ({ content: b.content, at: at[i]?.index })),
      ),
    });
  }
  return out;
}

/** Oracle pages for a PDF whose ground truth is Markdown. */
export function pagesFromMarkdown(
  set: string,
  file: string,
  md: string,
  pipelineDocTags: string,
  scanned: boolean,
  seed: number,
): OraclePage[] {
  const rand = mulberry32(seed);
  const offset = [0, 1, 2, 3].map(() => Math.floor(rand() * 5) - 2);
  const pipes = splitPages(pipelineDocTags).map(parseDraftBlocks);
  const flat = pipes.flatMap((blocks, page) => blocks.map((block) => ({ page, block })));
  const gt: TargetBlock[] = markdownToBlocks(md);
  const at = assign(gt, flat);
  const perPage: { tag: string; locs: string; content: string; list?: string }[][] = pipes.map(() => []);
  const regionGt: { content: string; at?: number }[][] = pipes.map(() => []);
  let page = 0;
  gt.forEach((g, i) => {
    const a = at[i];
    if (a) page = a.page;
    const locs = a ? jitter(flat[a.index].block.locs || randomLocs(rand), offset, rand) : randomLocs(rand);
    perPage[page].push({ tag: g.tag, locs, content: g.content, list: g.list });
    if (a) regionGt[page].push({ content: g.content, at: a.index - flat.findIndex((f) => f.page === page) });
  });
  return pipes.map((pipeline, p) => ({
    set,
    file,
    page: p + 1,
    scanned,
    target: assemblePage(perPage[p]),
    pipeline,
    regions: regionTargets(pipeline, regionGt[p]),
  }));
}
