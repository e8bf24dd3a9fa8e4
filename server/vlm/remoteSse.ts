/**
 * Reads an OpenAI-compatible streamed answer (server-sent events: `data: {json}` lines, ending
 * with `data: [DONE]`) and yields each content delta as it arrives. Comment and keep-alive lines
 * are skipped. A line that is not JSON, or JSON without `choices`, is an error: a server that
 * answers garbage must make the page fall back, not become an empty page.
 */
export interface StreamEnd {
  finishReason?: string;
}

export async function* sseDeltas(body: ReadableStream<Uint8Array>, end: StreamEnd = {}): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  let sawData = false;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl).replace(/\r$/, '');
      buffer = buffer.slice(nl + 1);
      if (!line.startsWith('data:')) continue;
      const data = line.slice(5).trim();
      if (data === '[DONE]') return;
      sawData = true;
      let obj: { choices?: { delta?: { content?: string | null }; finish_reason?: string | null }[]; error?: { message?: string } };
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
