/**
 * FakeOpenAiServer: a loopback stand-in for an OpenAI-compatible VLM server (vLLM, llama-server,
 * Ollama, LM Studio) — no such server with granite-docling can run in CI here. It records each
 * request (headers and JSON body) and answers in one of the ways real servers do: a replayed
 * answer streamed as server-sent events in small chunks, or failures (slow, garbage, HTTP 500),
 * or the hostile answers of issue 21 item 5: an endless body (`flood`), one endless line
 * (`longline`), a token every 100 ms forever (`trickle`), a redirect (`redirect`). The endless
 * ones stop sending after `floodBytes` and hold the connection, so a client without caps hangs
 * (and fails its test) instead of taking the machine's memory.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export type FakeMode = 'replay' | 'slow' | 'garbage' | 'error500' | 'flood' | 'longline' | 'trickle' | 'redirect';

export interface RecordedRequest {
  url: string;
  headers: IncomingMessage['headers'];
  body: any;
}

export class FakeOpenAiServer {
  readonly requests: RecordedRequest[] = [];
  mode: FakeMode = 'replay';
  /** The answer streamed in replay mode (what the model would write before its stop string). */
  answer = '';
  chunkChars = 7;
  chunkDelayMs = 5;
  /** Bytes the endless modes send before holding the connection open. */
  floodBytes = 64 * 1024 * 1024;
  private server?: Server;
  private readonly open = new Set<ServerResponse>();
  url = '';

  async start(): Promise<string> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', () => r()));
    this.url = `http://127.0.0.1:${(this.server!.address() as { port: number }).port}/v1`;
    return this.url;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', async () => {
      let body: any;
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
      this.requests.push({ url: req.url ?? '', headers: req.headers, body });
      if (req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
        return;
      }
      if (this.mode === 'error500') {
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"engine crashed"}}');
        return;
      }
      if (this.mode === 'slow') {
        this.open.add(res); // never answers; closed at stop()
        return;
      }
      if (this.mode === 'redirect') {
        res.writeHead(307, { location: 'http://192.0.2.1/v1/chat/completions' }).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      if (this.mode === 'flood' || this.mode === 'longline' || this.mode === 'trickle') {
        this.open.add(res);
        void this.endless(res, this.mode);
        return;
      }
      if (this.mode === 'garbage') {
        res.end('data: <html>Bad Gateway</html>\n\n');
        return;
      }
      const id = 'chatcmpl-fake';
      const send = (delta: object, finish: string | null) =>
        res.write(
          `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
        );
      send({ role: 'assistant', content: '' }, null);
      for (let i = 0; i < this.answer.length; i += this.chunkChars) {
        send({ content: this.answer.slice(i, i + this.chunkChars) }, null);
        await new Promise((r) => setTimeout(r, this.chunkDelayMs));
      }
      send({}, 'stop');
      res.end('data: [DONE]\n\n');
    });
  }

  private async endless(res: ServerResponse, mode: 'flood' | 'longline' | 'trickle'): Promise<void> {
    const event = `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'more text ' }, finish_reason: null }] })}\n\n`;
    if (mode === 'trickle') {
      while (!res.destroyed) {
        res.write(event);
        await new Promise((r) => setTimeout(r, 100));
      }
      return;
    }
    const block =
      mode === 'flood' ? Buffer.from(event.repeat(Math.ceil(65536 / event.length))) : Buffer.alloc(65536, 'a');
    if (mode === 'longline') res.write('data: {"choices":[{"delta":{"content":"');
    for (let sent = 0; sent < this.floodBytes && !res.destroyed; sent += block.length) {
      if (!res.write(block)) await new Promise((r) => res.once('drain', r));
    }
  }

  async stop(): Promise<void> {
    for (const r of this.open) r.destroy();
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(() => r(undefined)));
  }
}
