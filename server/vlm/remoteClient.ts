/**
 * A client for one OpenAI-compatible VLM endpoint (vLLM, llama.cpp's llama-server, Ollama,
 * LM Studio): streamed chat completions with a bound on requests in flight, a timeout that
 * fires when the server goes quiet, and retries with backoff for what a retry can fix
 * (connection refused or reset, 429, 5xx, a cut stream). Anything else fails the request at
 * once, with the server's words, so the page falls back to the pipeline.
 */
import type { RemoteVlmSettings } from '../protocol';
import { chatRequestBody, completionsUrl } from './remoteRequest';
import { sseDeltas, type StreamEnd } from './remoteSse';

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

  constructor(readonly settings: RemoteVlmSettings) {
    this.url = completionsUrl(settings.url);
    this.slots = new Slots(settings.parallel ?? 4);
  }

  /** One image and instruction; `onText` sees the answer so far each time tokens arrive. */
  complete(png: Buffer, instruction: string, signal?: AbortSignal, onText?: (soFar: string) => void): Promise<RemoteAnswer> {
    return this.slots.run(() => this.withRetries(png, instruction, signal, onText));
  }

  private async withRetries(png: Buffer, instruction: string, signal: AbortSignal | undefined, onText?: (soFar: string) => void): Promise<RemoteAnswer> {
    const attempts = Math.max(1, this.settings.attempts ?? 2);
    let last: Error = new Error('no attempt made');
    for (let k = 1; k <= attempts; k++) {
      if (signal?.aborted) throw new Error('cancelled');
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

  private async once(png: Buffer, instruction: string, outer: AbortSignal | undefined, onText?: (soFar: string) => void): Promise<{ text: string; finishReason?: string }> {
    const timeoutMs = this.settings.timeoutMs ?? 120000;
    const ctl = new AbortController();
    let timedOut = false;
    let timer = setTimeout(() => ((timedOut = true), ctl.abort()), timeoutMs);
    const bump = () => {
      clearTimeout(timer);
      timer = setTimeout(() => ((timedOut = true), ctl.abort()), timeoutMs);
    };
    const onOuter = () => ctl.abort();
    outer?.addEventListener('abort', onOuter, { once: true });
    try {
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream' };
      if (this.settings.apiKey) headers.authorization = `Bearer ${this.settings.apiKey}`;
      const body = chatRequestBody(png, instruction, this.settings.model, this.settings.maxTokens ?? 4096);
      let res: Response;
      try {
        res = await fetch(this.url, { method: 'POST', headers, body: JSON.stringify(body), signal: ctl.signal });
      } catch (e) {
        if (timedOut) throw new Error(`no answer within ${timeoutMs / 1000} s`);
        const cause = (e as { cause?: { code?: string } }).cause?.code;
        throw new Error(`cannot reach the VLM server (${cause ?? (e as Error).message})`);
      }
      if (!res.ok) {
        const text = (await res.text().catch(() => '')).slice(0, 300);
        const msg = `the server answered HTTP ${res.status}${text ? `: ${text}` : ''}`;
        if (res.status === 429 || res.status >= 500) throw new Error(msg);
        throw new Fatal(msg);
      }
      const type = res.headers.get('content-type') ?? '';
      if (!type.includes('text/event-stream')) throw new Fatal(`the server answered ${type || 'no content type'}, not a stream (text/event-stream): is this an OpenAI-compatible /v1 URL?`);
      if (!res.body) throw new Error('the server sent no body');
      const end: StreamEnd = {};
      let text = '';
      try {
        for await (const piece of sseDeltas(res.body, end)) {
          bump();
          text += piece;
          onText?.(text);
        }
      } catch (e) {
        if (timedOut) throw new Error(`the server stopped sending for ${timeoutMs / 1000} s`);
        throw e;
      }
      return { text, finishReason: end.finishReason };
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuter);
    }
  }
}
