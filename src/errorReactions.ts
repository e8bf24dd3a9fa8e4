/**
 * What the extension does about each kind of failure (docs/errors.md): ask for the password,
 * show the message (as an error, or as a warning for a limit the user may raise), or only log a
 * cancel the user asked for. The extension's one table of kinds; the backend's words are shown,
 * never read. No `vscode` import, so the table is checked by plain unit tests.
 */
import type { ErrorKind } from '../common/protocol';
import { kindOf } from '../common/errorKinds';

export type Reaction =
  /** Ask for the PDF's password with this prompt, then try again. */
  | { do: 'ask-password'; prompt: string }
  /** Show the backend's message, with this severity. */
  | { do: 'show'; severity: 'error' | 'warning' }
  /** Write it to the output channel only (the user cancelled). */
  | { do: 'log' };

const ERROR: Reaction = { do: 'show', severity: 'error' };
/** A limit of the user's settings (folio.limits.*): the message names the setting to raise. */
const LIMIT: Reaction = { do: 'show', severity: 'warning' };

export const EXTENSION_REACTIONS: Record<ErrorKind, Reaction> = {
  input: ERROR,
  'not-found': ERROR,
  damaged: ERROR,
  encrypted: { do: 'ask-password', prompt: 'Enter the PDF password' },
  password: { do: 'ask-password', prompt: 'That password is not correct. Try again.' },
  empty: ERROR,
  limit: LIMIT,
  timeout: LIMIT,
  memory: LIMIT,
  model: ERROR,
  cancelled: { do: 'log' },
  internal: ERROR,
};

/** The reaction to anything a request threw (a ResponseError's code, or a local error). */
export function reactionTo(e: unknown): Reaction {
  return EXTENSION_REACTIONS[kindOf(e)];
}
