/**
 * What every tool of `folio mcp` is given by the server factory (server.ts): the folders it may
 * read, the page workers and the conversion cache it shares with the other tools, the limits of
 * its answers, and the log (stderr and MCP logging). Each tool is one module that registers its
 * definition and handler with `register<Tool>(server, ctx)`.
 */
import type { ConvertLimits } from '../../common/protocol';
import type { PageWorkerPool } from '../worker/pool';
import type { AllowedRoots } from './paths';
import type { ConversionCache } from './cache';

export interface ToolContext {
  roots: AllowedRoots;
  pool: PageWorkerPool;
  cache: ConversionCache;
  /** Results above this size are cut, with a note. */
  maxChars: number;
  /** Resource limits of each conversion (docs/limits.md: page count, time, page memory). */
  limits: ConvertLimits;
  log: (level: 'info' | 'warning' | 'error', data: string) => void;
}
