/**
 * A client for one OpenAI-compatible VLM endpoint (vLLM, llama.cpp's llama-server, Ollama,
 * LM Studio): streamed chat completions with a bound on requests in flight, a time limit on the
 * whole answer, and retries with backoff for what a retry can fix (connection refused or reset,
 * 429, 5xx, a cut stream). Anything else fails the request at once, with the server's words, so
 * the page falls back to the pipeline.
 *
 * The server is untrusted (issue 21 item 5): `https://` unless it is this machine (the page
 * images and the API key), no redirects followed, the body and each SSE line capped
 * (remoteSse.ts), an error body read to 4 KB at most, and `timeoutMs` bounds the whole attempt
 * (it used to restart on every chunk, so a trickle never ended).
 */
import type { RemoteVlmSettings } from '../../common/protocol';
import { CancelledError } from '../errors';
import { chatRequestBody, completionsUrl } from './remoteRequest';
import { DEFAULT_STREAM_CAPS, sseDeltas, StreamCapError, type StreamCaps, type StreamEnd } from './remoteSse';
import { remoteUrlProblem } from '../util/loopback';

/** The first bytes of an error answer, for the message; the rest is never read. */
async function errorText(res: Response, max = 4096): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let n = 0;
  try {
    while (n < max) {
      const { value, done } = await reader.read();
      if (done || !value) break;
      parts.push(value);
      n += value.byteLength;
    }
  } catch {
    // a broken error body: the status says enough
  } finally {
    void reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(parts).toString('utf8', 0, Math.min(n, max));
}

export interface RemoteAnswer {
  text: string;
  finishReason?: string;
  attempts: number;
}

class Fatal extends Error {}

/** Counting semaphore: at most `n` requests in flight across all pages of this client. */
class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];
  constructor(n: number) {
    this.free = Math.max(1, n);
  }
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((r) => this.waiting.push(r));
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}

export class RemoteVlmClient {
  private readonly slots: Slots;
  readonly url: string;

  constructor(
    readonly settings: RemoteVlmSettings,
    private readonly caps: StreamCaps = DEFAULT_STREAM_CAPS,
  ) {
    // Checked again here (the CLI, the backend and the service check it first): a client never
    // sends a page or a key over plain HTTP to another machine.
    const problem = remoteUrlProblem(settings.url);
    if (problem) throw new Error(`the remote VLM address is refused: ${problem}`);
    this.url = completionsUrl(settings.url);
    this.slots = new Slots(settings.parallel ?? 4);
  }

  /** One image and instruction; `onText` sees the answer so far each time tokens arrive. */
  complete(
    png: Buffer,
    instruction: string,
    signal?: AbortSignal,
    onText?: (soFar: string) => void,
  ): Promise<RemoteAnswer> {
    return this.slots.run(() => this.withRetries(png, instruction, signal, onText));
  }

  private async withRetries(
    png: Buffer,
    instruction: string,
    signal: AbortSignal | undefined,
    onText?: (soFar: string) => void,
  ): Promise<RemoteAnswer> {
    const attempts = Math.max(1, this.settings.attempts ?? 2);
    let last: Error = new Error('no attempt made');
    for (let k = 1; k <= attempts; k++) {
      if (signal?.aborted) throw new CancelledError('the remote VLM request');
      try {
        const a = await this.once(png, instruction, signal, onText);
        return { ...a, attempts: k };
      } catch (e) {
        last = e instanceof Error ? e : new Error(String(e));
        if (e instanceof Fatal || signal?.aborted) break;
        if (k < attempts) await new Promise((r) => setTimeout(r, 300 * 2 ** (k - 1)));
      }
    }
    throw new Error(`${this.settings.url}: ${last.message}`);
  }

  private async once(
    png: Buffer,
    instruction: string,
    outer: AbortSignal | undefined,
    onText?: (soFar: string) => void,
  ): Promise<{ text: string; finishReason?: string }> {
    const timeoutMs = this.settings.timeoutMs ?? 120000;
    const ctl = new AbortController();
    let timedOut = false;
    // One deadline for the whole attempt: it is not restarted by incoming chunks.
    const timer = setTimeout(() => ((timedOut = true), ctl.abort()), timeoutMs);
    const onOuter = () => ctl.abort();
    outer?.addEventListener('abort', onOuter, { once: true });
    try {
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream' };
      if (this.settings.apiKey) headers.authorization = `Bearer ${this.settings.apiKey}`;
      const body = chatRequestBody(png, instruction, this.settings.model, this.settings.maxTokens ?? 4096);
      let res: Response;
      try {
        // No redirects: a 3xx could hand the page and the key to another host or to plain HTTP.
        res = await fetch(this.url, {
          method: 'POST',
          headers,
          body: JSON.stringify(body),
          signal: ctl.signal,
          redirect: 'manual',
        });
      } catch (e) {
        if (timedOut) throw new Error(`no answer within ${timeoutMs / 1000} s`);
        const cause = (e as { cause?: { code?: string } }).cause?.code;
        throw new Error(`cannot reach the VLM server (${cause ?? (e as Error).message})`);
      }
      if (res.status >= 300 && res.status < 400) {
        void res.body?.cancel().catch(() => undefined);
        throw new Fatal(
          `the server answered a redirect (HTTP ${res.status}) to ${(res.headers.get('location') ?? '').slice(0, 200)}; redirects are not followed: give that address as the URL`,
        );
      }
      if (!res.ok) {
        const text = (await errorText(res)).slice(0, 300);
        const msg = `the server answered HTTP ${res.status}${text ? `: ${text}` : ''}`;
        if (res.status === 429 || res.status >= 500) throw new Error(msg);
        throw new Fatal(msg);
      }
      const type = res.headers.get('content-type') ?? '';
      if (!type.includes('text/event-stream'))
        throw new Fatal(
          `the server answered ${type || 'no content type'}, not a stream (text/event-stream): is this an OpenAI-compatible /v1 URL?`,
        );
      if (!res.body) throw new Error('the server sent no body');
      const end: StreamEnd = {};
      let text = '';
      try {
        for await (const piece of sseDeltas(res.body, end, this.caps)) {
          text += piece;
          onText?.(text);
        }
      } catch (e) {
        if (timedOut) throw new Error(`no complete answer within ${timeoutMs / 1000} s`);
        if (e instanceof StreamCapError) throw new Fatal(e.message);
        throw e;
      }
      return { text, finishReason: end.finishReason };
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuter);
    }
  }
}
