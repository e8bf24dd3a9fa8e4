/**
 * FakeOpenAiServer: a loopback stand-in for an OpenAI-compatible VLM server (vLLM, llama-server,
 * Ollama, LM Studio) — no such server with granite-docling can run in CI here. It records each
 * request (headers and JSON body) and answers in one of the ways real servers do: a replayed
 * answer streamed as server-sent events in small chunks, or failures (slow, garbage, HTTP 500).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export type FakeMode = 'replay' | 'slow' | 'garbage' | 'error500';

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
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      if (this.mode === 'garbage') {
        res.end('data: <html>Bad Gateway</html>\n\n');
        return;
      }
      const id = 'chatcmpl-fake';
      const send = (delta: object, finish: string | null) =>
        res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
      send({ role: 'assistant', content: '' }, null);
      for (let i = 0; i < this.answer.length; i += this.chunkChars) {
        send({ content: this.answer.slice(i, i + this.chunkChars) }, null);
        await new Promise((r) => setTimeout(r, this.chunkDelayMs));
      }
      send({}, 'stop');
      res.end('data: [DONE]\n\n');
    });
  }

  async stop(): Promise<void> {
    for (const r of this.open) r.destroy();
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(() => r(undefined)));
  }
}
