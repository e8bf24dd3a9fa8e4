/**
 * The exit code of each failure kind, for every command (`folio convert`, `folio models`,
 * `folio mcp`, …): their one table of kinds (docs/errors.md). A run's
 * code is the highest of its files' (0 when every file converted). Every document problem is 1,
 * as the README has always promised (a script tells "some file failed" from "bad arguments", 2,
 * and from an interrupt, 130, like a shell's SIGINT); the line on stderr says which and why.
 */
import type { ErrorKind } from '../common/protocol';

export const EXIT_CODES: Record<ErrorKind, number> = {
  input: 2,
  'not-found': 1,
  damaged: 1,
  encrypted: 1,
  password: 1,
  empty: 1,
  limit: 1,
  timeout: 1,
  memory: 1,
  model: 1,
  cancelled: 130,
  internal: 1,
};
