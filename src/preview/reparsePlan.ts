/**
 * Where a reparse answer goes in the `.md`, decided from the region map alone (pure, so the
 * re-anchor / drop rules are unit-tested without VS Code):
 * - the region still has Markdown: replace exactly its current range (which the map moved along
 *   with any edits made while the backend worked — "re-anchored" when the version changed);
 * - it had Markdown when the request left but the user deleted it meanwhile: drop, never guess;
 * - it never had Markdown (furniture, a drawn region): insert at its reading-order place.
 */
import type { RegionMap } from './regionMap';

export type ReparsePlan =
  | { kind: 'replace'; start: number; end: number; text: string; reanchored: boolean }
  | { kind: 'insert'; offset: number; text: string; start: number; block: string }
  | { kind: 'drop'; reason: string };

export interface ReparseContext {
  requestVersion: number;
  currentVersion: number;
  /** The region had Markdown when the request was sent. */
  wasLinked: boolean;
  /** The backend's Markdown for the region. */
  markdown: string;
  docLength: number;
}

export function planReparse(map: RegionMap, id: string, c: ReparseContext): ReparsePlan {
  const region = map.region(id);
  if (!region) return { kind: 'drop', reason: `Region ${id} was deleted while it was being reparsed; result dropped.` };
  const changed = c.currentVersion !== c.requestVersion;
  const md = c.markdown.replace(/\s+$/, '');
  if (region.range)
    return { kind: 'replace', start: region.range.start, end: region.range.end, text: md, reanchored: changed };
  if (c.wasLinked) {
    return {
      kind: 'drop',
      reason: `The Markdown of region ${region.order + 1} (page ${region.page}) was edited away while it was being reparsed; result dropped.`,
    };
  }
  if (!md)
    return { kind: 'drop', reason: `The reparse of region ${region.order + 1} (page ${region.page}) found no text.` };
  const ip = map.insertionPoint(id, c.docLength);
  if (ip.before) return { kind: 'insert', offset: ip.offset, text: `${md}\n\n`, start: ip.offset, block: md };
  const sep = ip.offset > 0 ? '\n\n' : '';
  return { kind: 'insert', offset: ip.offset, text: `${sep}${md}`, start: ip.offset + sep.length, block: md };
}
