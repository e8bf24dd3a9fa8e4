import type { ErrorKind } from '../../common/protocol';

/**
 * Which failures of a range are tried again (BullMQ's attempts) — the queue's table of kinds
 * (docs/errors.md). A document that is damaged, locked, over a limit or refused by the model
 * fails the same way every time: the task fails at once. A timeout, a worker out of memory or
 * a crash may pass on another worker; a cancel is checked again (shouldStop) on the next try.
 */
export const RETRIED: Record<ErrorKind, boolean> = {
  input: false,
  'not-found': false,
  damaged: false,
  encrypted: false,
  password: false,
  empty: false,
  limit: false,
  model: false,
  timeout: true,
  memory: true,
  cancelled: true,
  internal: true,
};
