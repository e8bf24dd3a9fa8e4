/**
 * What the block classifier knows of the page a block sits on. Its own file so that
 * `classify.ts` and `headingRoles.ts`, which both read it, do not import each other.
 */
import type { DocStats } from '../../model/stats';

export interface PageInfo {
  page: number;
  width: number;
  height: number;
  stats: DocStats;
}
