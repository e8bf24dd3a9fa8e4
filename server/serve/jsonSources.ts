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

/**
 * The files' byte budget ran out while one was being written: `readJsonSources` answers it with
 * the service's limit, which only it knows. A class of its own, so that decision reads the type,
 * never the message.
 */
class FileBudgetError extends JsonBodyError {
  constructor() {
    super(413, 'too_large', 'the files are larger than the limit');
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
  /**
   * Base64 file sources in one body (the service's files per request): the one past it is refused
   * while the body streams in, before its file is created (security round 4, N1).
   */
  maxFiles?: number;
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
  /** Where this file's byte count goes (the body's files map), set as bytes are written. */
  readonly record: StreamedFile;
  private carry = '';
  private escape = false;
  bytes = 0;

  constructor(
    readonly path: string,
    private readonly budget: { left: number },
  ) {
    this.fd = openSync(path, 'wx', 0o600);
    this.record = { path, bytes: 0 };
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
    if (this.budget.left < 0) throw new FileBudgetError();
    this.bytes += bytes.length;
    this.record.bytes = this.bytes;
    writeSync(this.fd, bytes);
  }
}

/**
 * An object key as JSON reads it; a malformed one (a bad escape, a raw control character) is the
 * client's error, a 400 naming the key, never a 500 (security round 4, N7).
 */
function parseKey(raw: string): string {
  try {
    return JSON.parse(raw) as string;
  } catch (e) {
    throw new JsonBodyError(
      400,
      'bad_json',
      `the JSON body is not valid JSON: the object key ${JSON.stringify(raw.slice(0, 60))} has a bad escape or a raw control character (${(e as Error).message.slice(0, 80)})`,
    );
  }
}

const notBase64 = () => new JsonBodyError(400, 'bad_base64', 'base64_string is not base64');

/** The body's scanner: where in the JSON each byte is, what is kept, what goes to a file. */
class BodyScanner {
  readonly files = new Map<string, StreamedFile>();
  readonly open: Base64File[] = [];
  private readonly nonce = randomBytes(12).toString('hex');
  private readonly budget: { left: number };
  private readonly rest: Buffer[] = [];
  private restBytes = 0;
  private readonly stack: Frame[] = [];
  /** Inside a string: its raw bytes so far (keys), or the file it decodes into. */
  private inString: { raw: Buffer[]; key: boolean } | { file: Base64File } | undefined;
  private escape = false;

  constructor(private readonly limits: JsonSourceLimits) {
    this.budget = { left: limits.maxFileBytes };
  }

  get text(): string {
    if (this.inString) throw new JsonBodyError(400, 'bad_request', 'the JSON body ends inside a string');
    // Each file's byte count is kept in its record as it is written: nothing to copy here (the
    // copy that was here went over every file for every file: 20,000 empty sources took 34 s of
    // the event loop, security round 4, N1).
    return Buffer.concat(this.rest).toString('utf8');
  }

  private keep(b: Buffer): void {
    this.restBytes += b.length;
    if (this.restBytes > this.limits.maxRestBytes)
      throw new JsonBodyError(
        413,
        'too_large',
        `the request's JSON besides its base64 files is larger than ${this.limits.maxRestBytes} bytes`,
      );
    this.rest.push(b);
  }

  /** Whether a string starting now is a file source's base64: `{"sources": [{"base64_string": "…"`. */
  private isFileString(): boolean {
    const [root, list, item] = this.stack;
    return (
      this.stack.length === 3 &&
      root!.kind === 'obj' &&
      SOURCE_LISTS.has(root!.key ?? '') &&
      list!.kind === 'arr' &&
      item!.kind === 'obj' &&
      !item!.expectKey &&
      item!.key === 'base64_string'
    );
  }

  /** A string ends at `i`; returns where the bytes not yet kept start. */
  private closeString(chunk: Buffer, from: number, i: number): number {
    const s = this.inString!;
    this.inString = undefined;
    if ('file' in s) {
      s.file.feed(chunk.subarray(from, i));
      s.file.end();
      return i + 1;
    }
    if (!s.key) return from;
    s.raw.push(chunk.subarray(from, i + 1));
    this.keep(chunk.subarray(from, i + 1));
    const top = this.stack[this.stack.length - 1];
    if (top?.kind === 'obj') {
      top.key = parseKey(Buffer.concat(s.raw).toString('utf8'));
      top.expectKey = false;
    }
    return i + 1;
  }

  /** A string starts at `i`; returns where the bytes not yet kept start. */
  private openString(chunk: Buffer, from: number, i: number): number {
    const top = this.stack[this.stack.length - 1];
    const key = top?.kind === 'obj' && top.expectKey;
    if (!key && this.isFileString()) {
      const max = this.limits.maxFiles;
      if (max !== undefined && this.open.length >= max)
        throw new JsonBodyError(
          413,
          'too_many_files',
          `more than ${max} file sources in one request; this service takes at most ${max}: send them in several requests`,
        );
      this.keep(chunk.subarray(from, i));
      const token = `\u0000folio-stored-${this.nonce}-${this.files.size}`;
      this.keep(Buffer.from(JSON.stringify(token)));
      const file = new Base64File(this.limits.newFile(), this.budget);
      this.open.push(file);
      this.files.set(token, file.record);
      this.inString = { file };
      return i + 1;
    }
    this.inString = { raw: key ? [chunk.subarray(i, i + 1)] : [], key };
    if (!key) return from;
    this.keep(chunk.subarray(from, i + 1));
    return i + 1;
  }

  private push(frame: Frame): void {
    if (this.stack.length >= 64) throw new JsonBodyError(400, 'bad_request', 'the JSON body is nested too deeply');
    this.stack.push(frame);
  }

  scan(chunk: Buffer): void {
    let from = 0; // start of the bytes not yet kept
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (this.inString) {
        if (this.escape) this.escape = false;
        else if (b === 0x5c) this.escape = true;
        else if (b === 0x22) from = this.closeString(chunk, from, i);
        continue;
      }
      if (b === 0x22) from = this.openString(chunk, from, i);
      else if (b === 0x7b) this.push({ kind: 'obj', expectKey: true });
      else if (b === 0x5b) this.push({ kind: 'arr' });
      else if (b === 0x7d || b === 0x5d) this.stack.pop();
      else if (b === 0x2c) {
        const top = this.stack[this.stack.length - 1];
        if (top?.kind === 'obj') top.expectKey = true;
      }
    }
    // What is left of the chunk: a file's base64 to the file, a key also to its own buffer, the rest kept.
    if (this.inString && 'file' in this.inString) this.inString.file.feed(chunk.subarray(from));
    else {
      if (this.inString?.key) this.inString.raw.push(chunk.subarray(from));
      this.keep(chunk.subarray(from));
    }
  }
}

/**
 * Reads `stream` (a JSON body) with base64 file sources streamed to files. Resolves with the body
 * text (tokens in place of those strings) and the files by token; on any error every file made
 * is removed.
 */
export async function readJsonSources(
  stream: Readable,
  limits: JsonSourceLimits,
): Promise<{ text: string; files: Map<string, StreamedFile> }> {
  const scanner = new BodyScanner(limits);
  let bodyBytes = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      bodyBytes += chunk.length;
      if (bodyBytes > limits.maxBodyBytes)
        throw new JsonBodyError(
          413,
          'too_large',
          `the request body is larger than this service's limit of ${limits.maxBodyBytes} bytes`,
        );
      scanner.scan(chunk);
    }
    return { text: scanner.text, files: scanner.files };
  } catch (e) {
    for (const f of scanner.open) f.close();
    for (const f of scanner.files.values()) limits.remove(f.path);
    if (e instanceof FileBudgetError)
      throw new JsonBodyError(
        413,
        'too_large',
        `the files in this request are larger than this service's limit of ${limits.maxFileBytes} bytes`,
      );
    throw e;
  }
}
