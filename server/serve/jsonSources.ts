/**
 * A JSON source body read as a stream (security round 3, F6): the base64 of each file source
 * (`sources[i].base64_string`, `file_sources[i].base64_string`) is decoded straight into a file
 * in the work folder, held to the upload size limit as it arrives; only the rest of the body
 * (options, URLs, names: small) is kept in memory and parsed. Before, the whole body (up to
 * 1.34 × the upload limit) was held as text, parsed, then decoded once more into memory.
 *
 * In the parsed body each streamed `base64_string` is replaced by a token naming its file; the
 * token carries a random nonce of this request, so a client cannot name a file by writing one.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';

export class JsonBodyError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface StreamedFile {
  path: string;
  bytes: number;
}

export interface JsonSourceLimits {
  /** The whole body, as sent. */
  maxBodyBytes: number;
  /** All decoded files together. */
  maxFileBytes: number;
  /** The body without its base64 strings. */
  maxRestBytes: number;
  /** A new file path in the work folder (created here, 0600, exclusive). */
  newFile(): string;
  remove(path: string): void;
}

const SOURCE_LISTS = new Set(['sources', 'file_sources']);
const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);
const B64 = new Uint8Array(256);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_') B64[c.charCodeAt(0)] = 1;

type Frame = { kind: 'obj'; key?: string; expectKey: boolean } | { kind: 'arr' };

/** Decodes base64 as it arrives into one file; `total` is shared by all files of the body. */
class Base64File {
  private readonly fd: number;
  private carry = '';
  private escape = false;
  bytes = 0;

  constructor(
    readonly path: string,
    private readonly budget: { left: number },
  ) {
    this.fd = openSync(path, 'wx', 0o600);
  }

  /** Feeds the string's raw bytes (between the quotes): base64 letters, whitespace, `\/`, `\n`, `\r`, `\t`. */
  feed(raw: Buffer): void {
    const kept = Buffer.allocUnsafe(raw.length);
    let n = 0;
    for (const b of raw) {
      if (this.escape) {
        this.escape = false;
        if (b === 0x2f) kept[n++] = b;
        else if (b !== 0x6e && b !== 0x72 && b !== 0x74) throw notBase64();
        continue;
      }
      if (b === 0x5c) this.escape = true;
      else if (B64[b]) kept[n++] = b;
      else if (!WS.has(b)) throw notBase64();
    }
    const all = this.carry + kept.toString('latin1', 0, n);
    const whole = all.length - (all.length % 4);
    this.carry = all.slice(whole);
    if (whole > 0) this.write(Buffer.from(all.slice(0, whole), 'base64'));
  }

  end(): void {
    if (this.escape) throw notBase64();
    if (this.carry) this.write(Buffer.from(this.carry, 'base64'));
    this.carry = '';
    closeSync(this.fd);
  }

  close(): void {
    try {
      closeSync(this.fd);
    } catch {
      // already closed
    }
  }

  private write(bytes: Buffer): void {
    this.budget.left -= bytes.length;
    if (this.budget.left < 0) throw new JsonBodyError(413, 'too_large', 'too large');
    this.bytes += bytes.length;
    writeSync(this.fd, bytes);
  }
}

const notBase64 = () => new JsonBodyError(400, 'bad_base64', 'base64_string is not base64');

/**
 * Reads `stream` (a JSON body) with base64 file sources streamed to files. Resolves with the body
 * text (tokens in place of those strings) and the files by token; on any error every file made
 * is removed.
 */
export async function readJsonSources(
  stream: Readable,
  limits: JsonSourceLimits,
): Promise<{ text: string; files: Map<string, StreamedFile> }> {
  const nonce = randomBytes(12).toString('hex');
  const files = new Map<string, StreamedFile>();
  const open: Base64File[] = [];
  const budget = { left: limits.maxFileBytes };
  const rest: Buffer[] = [];
  let restBytes = 0;
  let bodyBytes = 0;
  const stack: Frame[] = [];
  // Inside a string: its raw bytes so far (keys and ordinary values), or the file it decodes into.
  let inString: { raw: Buffer[]; key: boolean } | { file: Base64File } | undefined;
  let escape = false;
  const keep = (b: Buffer) => {
    restBytes += b.length;
    if (restBytes > limits.maxRestBytes)
      throw new JsonBodyError(
        413,
        'too_large',
        `the request's JSON besides its base64 files is larger than ${limits.maxRestBytes} bytes`,
      );
    rest.push(b);
  };
  /** Whether a string starting now is a file source's base64: `{"sources": [{"base64_string": "…"`. */
  const isFileString = (): boolean => {
    const [root, list, item] = stack;
    return (
      stack.length === 3 &&
      root!.kind === 'obj' &&
      SOURCE_LISTS.has(root!.key ?? '') &&
      list!.kind === 'arr' &&
      item!.kind === 'obj' &&
      !item!.expectKey &&
      item!.key === 'base64_string'
    );
  };
  const scan = (chunk: Buffer) => {
    let from = 0; // start of the bytes not yet kept
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (inString) {
        if (escape) {
          escape = false;
          continue;
        }
        if (b === 0x5c) {
          escape = true;
          continue;
        }
        if (b !== 0x22) continue;
        // The closing quote.
        if ('file' in inString) {
          inString.file.feed(chunk.subarray(from, i));
          inString.file.end();
          from = i + 1;
        } else if (inString.key) {
          inString.raw.push(chunk.subarray(from, i + 1));
          const raw = Buffer.concat(inString.raw).toString('utf8');
          keep(chunk.subarray(from, i + 1));
          from = i + 1;
          const top = stack[stack.length - 1];
          if (top?.kind === 'obj') {
            top.key = JSON.parse(raw) as string;
            top.expectKey = false;
          }
        }
        inString = undefined;
        continue;
      }
      switch (b) {
        case 0x22: {
          const top = stack[stack.length - 1];
          const key = top?.kind === 'obj' && top.expectKey;
          if (!key && isFileString()) {
            keep(chunk.subarray(from, i));
            const token = `\u0000folio-stored-${nonce}-${files.size}`;
            keep(Buffer.from(JSON.stringify(token)));
            const file = new Base64File(limits.newFile(), budget);
            open.push(file);
            files.set(token, { path: file.path, bytes: 0 });
            inString = { file };
            from = i + 1;
          } else {
            inString = { raw: key ? [chunk.subarray(i, i + 1)] : [], key };
            if (key) {
              keep(chunk.subarray(from, i + 1));
              from = i + 1;
            }
          }
          break;
        }
        case 0x7b: // {
          if (stack.length >= 64) throw new JsonBodyError(400, 'bad_request', 'the JSON body is nested too deeply');
          stack.push({ kind: 'obj', expectKey: true });
          break;
        case 0x5b: // [
          if (stack.length >= 64) throw new JsonBodyError(400, 'bad_request', 'the JSON body is nested too deeply');
          stack.push({ kind: 'arr' });
          break;
        case 0x7d: // }
        case 0x5d: // ]
          stack.pop();
          break;
        case 0x2c: {
          // ,
          const top = stack[stack.length - 1];
          if (top?.kind === 'obj') top.expectKey = true;
          break;
        }
      }
    }
    // What is left of the chunk: a file's base64 goes to the file, a key to its own buffer (and the rest), the rest to the rest.
    if (inString && 'file' in inString) inString.file.feed(chunk.subarray(from));
    else {
      if (inString?.key) inString.raw.push(chunk.subarray(from));
      keep(chunk.subarray(from));
    }
  };
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      bodyBytes += chunk.length;
      if (bodyBytes > limits.maxBodyBytes)
        throw new JsonBodyError(
          413,
          'too_large',
          `the request body is larger than this service's limit of ${limits.maxBodyBytes} bytes`,
        );
      scan(chunk);
    }
    if (inString) throw new JsonBodyError(400, 'bad_request', 'the JSON body ends inside a string');
  } catch (e) {
    for (const f of open) f.close();
    for (const f of files.values()) limits.remove(f.path);
    if (e instanceof JsonBodyError && e.message === 'too large')
      throw new JsonBodyError(
        413,
        'too_large',
        `the files in this request are larger than this service's limit of ${limits.maxFileBytes} bytes`,
      );
    throw e;
  }
  for (const [i, f] of open.entries()) [...files.values()][i]!.bytes = f.bytes;
  return { text: Buffer.concat(rest).toString('utf8'), files };
}
