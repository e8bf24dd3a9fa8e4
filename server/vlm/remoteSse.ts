/**
 * Reads an OpenAI-compatible streamed answer (server-sent events: `data: {json}` lines, ending
 * with `data: [DONE]`) and yields each content delta as it arrives. Comment and keep-alive lines
 * are skipped. A line that is not JSON, or JSON without `choices`, is an error: a server that
 * answers garbage must make the page fall back, not become an empty page.
 *
 * The server is untrusted (issue 21 item 5): the body is cut at `maxBytes` and a line at
 * `maxLineBytes` (an endless body or one endless line once took 8 GB in 25 s).
 */
export interface StreamEnd {
  finishReason?: string;
}

export interface StreamCaps {
  /** Bytes of the whole body. */
  maxBytes: number;
  /** Bytes of one line (one event). */
  maxLineBytes: number;
}

/**
 * A page answer is at most `max_tokens` (4096) tokens; as SSE, one event of ~200 bytes per
 * token: about 1 MB. These caps leave room for chatty servers and stop a runaway one.
 */
export const DEFAULT_STREAM_CAPS: StreamCaps = { maxBytes: 16 * 1024 * 1024, maxLineBytes: 1024 * 1024 };

/** A cap was reached: the server is runaway, a retry would only cost as much again. */
export class StreamCapError extends Error {}

const mb = (n: number) => `${Math.round((n / 1024 / 1024) * 10) / 10} MB`;

export async function* sseDeltas(
  body: ReadableStream<Uint8Array>,
  end: StreamEnd = {},
  caps: StreamCaps = DEFAULT_STREAM_CAPS,
): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  let sawData = false;
  let bytes = 0;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.byteLength;
    if (bytes > caps.maxBytes)
      throw new StreamCapError(`the answer passed ${mb(caps.maxBytes)}, more than a page can need; it was cut off`);
    buffer += decoder.decode(chunk, { stream: true });
    // A line still open past the cap (one char is at least one byte) is refused before it grows.
    if (buffer.length > caps.maxLineBytes && buffer.indexOf('\n') < 0)
      throw new StreamCapError(`the server sent a stream line longer than ${mb(caps.maxLineBytes)}; it was cut off`);
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl).replace(/\r$/, '');
      buffer = buffer.slice(nl + 1);
      if (line.length > caps.maxLineBytes)
        throw new StreamCapError(`the server sent a stream line longer than ${mb(caps.maxLineBytes)}; it was cut off`);
      if (!line.startsWith('data:')) continue;
      const data = line.slice(5).trim();
      if (data === '[DONE]') return;
      sawData = true;
      let obj: {
        choices?: { delta?: { content?: string | null }; finish_reason?: string | null }[];
        error?: { message?: string };
      };
      try {
        obj = JSON.parse(data);
      } catch {
        throw new Error(`the server sent a stream line that is not JSON (${data.slice(0, 80)})`);
      }
      if (obj.error) throw new Error(`the server reported an error: ${obj.error.message ?? JSON.stringify(obj.error)}`);
      if (!Array.isArray(obj.choices)) throw new Error('the server sent a stream event without "choices"');
      const c = obj.choices[0];
      if (c?.finish_reason) end.finishReason = c.finish_reason;
      const piece = c?.delta?.content;
      if (piece) yield piece;
    }
  }
  if (!sawData) throw new Error('the server closed the stream without sending any event');
  if (end.finishReason) return; // some servers close after the last event without [DONE]
  throw new Error('the stream ended without [DONE] (connection cut?)');
}
