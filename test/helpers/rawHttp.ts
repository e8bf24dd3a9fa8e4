/**
 * HTTP/1.1 over a plain socket (node:net), for requests `fetch` refuses to send: absolute-form
 * and `*` request targets, percent-encoded paths kept as written, any Host or Origin header, a
 * body cut short, a connection held open.
 */
import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Opens a connection to 127.0.0.1:port and resolves once it is connected. */
export function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port }, () => resolve(s));
    s.once('error', reject);
  });
}

/** Reads one response from `sock` (the server closes, or Content-Length bytes of body arrived). */
export function readResponse(sock: Socket, timeoutMs = 30_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error(`no complete response within ${timeoutMs} ms; got: ${buf.toString('latin1').slice(0, 200)}`));
    }, timeoutMs);
    const tryParse = (final: boolean) => {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) {
        if (final) finish(new Error(`connection closed without a response: ${buf.toString('latin1').slice(0, 200)}`));
        return;
      }
      const lines = buf.subarray(0, end).toString('latin1').split('\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0])?.[1]);
      const headers: Record<string, string> = {};
      for (const l of lines.slice(1)) {
        const i = l.indexOf(':');
        if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
      }
      const body = buf.subarray(end + 4);
      const len = headers['content-length'] !== undefined ? Number(headers['content-length']) : undefined;
      if (len !== undefined && body.length >= len)
        finish(undefined, { status, headers, body: body.subarray(0, len).toString('utf8') });
      else if (final) finish(undefined, { status, headers, body: body.toString('utf8') });
    };
    const finish = (err?: Error, r?: RawResponse) => {
      clearTimeout(timer);
      sock.off('data', onData);
      sock.off('close', onClose);
      if (err) reject(err);
      else resolve(r!);
    };
    const onData = (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      tryParse(false);
    };
    const onClose = () => tryParse(true);
    sock.on('data', onData);
    sock.once('close', onClose);
  });
}

/** Sends `head` (request line and headers, without the blank line) and `body`; answers the response. */
export async function rawRequest(
  port: number,
  head: string,
  body: Buffer | string = '',
  timeoutMs?: number,
): Promise<RawResponse> {
  const sock = await openSocket(port);
  try {
    const res = readResponse(sock, timeoutMs);
    sock.write(
      Buffer.concat([
        Buffer.from(head.replace(/\r?\n/g, '\r\n').replace(/(\r\n)*$/, '') + '\r\n\r\n', 'latin1'),
        Buffer.from(body),
      ]),
    );
    return await res;
  } finally {
    sock.destroy();
  }
}

/** A multipart/form-data body: fields, then files; returns the body and its content type. */
export function multipartBody(
  files: { field?: string; name: string; bytes: Buffer; type?: string }[],
  fields: Record<string, string> = {},
): { body: Buffer; contentType: string } {
  const boundary = `----folioTest${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields))
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  for (const f of files) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${f.field ?? 'files'}"; filename="${f.name}"\r\nContent-Type: ${f.type ?? 'application/pdf'}\r\n\r\n`,
      ),
    );
    parts.push(f.bytes, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}
