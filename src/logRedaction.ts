/**
 * Secrets kept out of Folio's log. With the "Folio" output channel at Trace and
 * `folio.trace.server: "verbose"` (a window setting, so a workspace can set it), the language
 * client writes every JSON-RPC message's parameters to the channel, which is also saved in the
 * window's log folder: the PDF password and the remote VLM key (`options.remoteVlm.apiKey`, read
 * from FOLIO_VLM_API_KEY precisely to keep it out of files) went there in clear. Every line the
 * channel gets passes through `redactSecrets` first (`redactingLog`).
 *
 * No `vscode` import: unit-tested in Node against vscode-jsonrpc's real trace output.
 */

/** JSON keys whose values are secrets, wherever they appear (compared without case). */
const SECRET_KEYS = ['password', 'apiKey', 'api_key', 'api-key', 'x-api-key', 'authorization', 'token', 'secret'];
const KEYS = SECRET_KEYS.join('|');
/**
 * `"key": value` in JSON, compact or indented, also escaped inside a JSON string once or at any
 * depth (`\"key\":\"value\"`, `\\\"key\\\"…`): the key's quotes carry some backslashes, and
 * the value's closing quote is the first with exactly as many. The value is a string, an array
 * (to its first `]`) or a bare number, boolean or null.
 */
const JSON_SECRET = new RegExp(`((\\\\*)"(?:${KEYS})\\2"\\s*:\\s*)(\\2")[\\s\\S]*?(?<!\\\\)\\2"`, 'gi');
/** The same keys with a number, boolean or array value (not `token`: JSON-RPC's progress tokens are numbers). */
const JSON_SECRET_BARE = new RegExp(
  `((\\\\*)"(?:${KEYS.replace('|token', '')})\\2"\\s*:\\s*)(?:\\[[^\\]]*\\]|[-+\\w.]+)`,
  'gi',
);
/**
 * `key=value` / `key: value` outside JSON (a URL query, a message, a single-quoted repr), and
 * `Authorization: Bearer <token>` with its scheme; not "token" (a cancellation token).
 */
const PLAIN_SECRET = new RegExp(
  `\\b((?:password|apiKey|api_key|api-key|x-api-key|authorization)['"]?(?:\\s*[=:]\\s*|\\s+(?=(?:Bearer|Basic|Token)\\s))(?:(?:Bearer|Basic|Token)\\s+)?)(?!\\s*\\\\*")(?:'(?:[^'\\\\]|\\\\.)*'|[^\\s&,;"']+)`,
  'gi',
);

export const REDACTED = '[redacted]';

/** Secret values known at run time (the remote VLM key from the environment), replaced anywhere. */
const knownSecrets = new Set<string>();

/** Adds a value that must never be logged (short values are ignored: they would blank out words). */
export function addSecret(value: string | undefined): void {
  if (value && value.length >= 6) knownSecrets.add(value);
}

export function redactSecrets(text: string): string {
  let out = text.replace(
    JSON_SECRET,
    (_m, head: string, _bs: string, quote: string) => `${head}${quote}${REDACTED}${quote}`,
  );
  out = out.replace(JSON_SECRET_BARE, (_m, head: string, bs: string) => `${head}${bs}"${REDACTED}${bs}"`);
  out = out.replace(PLAIN_SECRET, (_m, head: string) => `${head}${REDACTED}`);
  for (const s of knownSecrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
}

/** The methods of a (Log)OutputChannel that write text. */
const WRITERS = new Set(['append', 'appendLine', 'replace', 'trace', 'debug', 'info', 'warn', 'error']);

/**
 * The same channel, with every string written through it redacted (an Error given to `error`
 * is logged by its redacted message). Everything else (log level, events, show) is the channel's.
 */
export function redactingLog<T extends object>(channel: T): T {
  return new Proxy(channel, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      if (typeof prop !== 'string' || !WRITERS.has(prop)) return value.bind(target);
      return (...args: unknown[]) =>
        (value as (...a: unknown[]) => unknown).apply(
          target,
          args.map((a) =>
            typeof a === 'string' ? redactSecrets(a) : a instanceof Error ? redactSecrets(a.stack ?? a.message) : a,
          ),
        );
    },
  });
}
