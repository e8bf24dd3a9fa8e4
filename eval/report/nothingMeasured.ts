/**
 * A benchmark or evaluation that measured nothing must not look like one that measured
 * something: every `bench/*.main.ts` and `eval/*.main.ts` calls `requireMeasured` before it
 * prints a table, and its `main().catch` turns the error into a non-zero exit with this message.
 */
export class NothingMeasuredError extends Error {
  override readonly name = 'NothingMeasuredError';
}

/**
 * Throws a NothingMeasuredError when `count` is 0. `what` names what was asked for (a set, a
 * table), `hint` says what to check; the message starts with "nothing measured" so scripts and
 * the smoke tests can recognise it.
 */
export function requireMeasured(count: number, what: string, hint: string): void {
  if (count > 0) return;
  throw new NothingMeasuredError(`nothing measured: ${what} is empty. ${hint}`);
}
