import type { ErrorKind } from '../../common/protocol';

/**
 * A failed task's kind → the HTTP status a synchronous caller gets: the service's one table of
 * kinds (docs/errors.md). The document itself (damaged, locked, empty, bad selection) is 422;
 * a limit of this service 413; a deadline 504; what the server lacks (a model) 503.
 */
export const HTTP_STATUS: Record<ErrorKind, number> = {
  input: 422,
  'not-found': 422,
  damaged: 422,
  encrypted: 422,
  password: 422,
  empty: 422,
  limit: 413,
  timeout: 504,
  memory: 422,
  model: 503,
  cancelled: 409,
  internal: 500,
};
