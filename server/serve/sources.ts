/**
 * Inputs that are not multipart uploads: docling-serve's `file_sources` / `sources[kind=file]`
 * (base64 in the JSON body) and `http_sources` / `sources[kind=http]` (the service fetches a URL).
 *
 * Fetching is off unless the service was started with `--allow-http-sources`; even then a URL
 * whose host is (or resolves to) a loopback, private, link-local, or otherwise non-public address
 * is refused unless `--allow-private-sources` — the check is made on the address actually
 * connected to (the lookup the connection uses), so a name cannot resolve to a public address for
 * the check and a private one for the connection. Each exchange is held to the upload size
 * limit and one total time; redirects are followed (at most 3), each hop checked the same way.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { isIP, BlockList } from 'node:net';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createWriteStream } from 'node:fs';

export class SourceError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

export interface HttpSourcePolicy {
  enabled: boolean;
  allowPrivate: boolean;
  maxBytes: number;
  timeoutMs: number;
  /**
   * Tests only (never set by `folio serve`): where a connection to an address that passed every
   * check really goes, since a public address cannot be reached from the test machine.
   */
  connectForTest?: (address: string, port: number) => { host: string; port: number };
}

/**
 * Addresses a URL source may not reach without --allow-private-sources. Two lists: Node's
 * BlockList checks an IPv4 address against its IPv6 rules too (as `::ffff:a.b.c.d`), so one list
 * holding `::ffff:0:0/96` made every IPv4 address private (security round 3, F4).
 */
const PRIVATE_V4 = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  PRIVATE_V4.addSubnet(net, bits, 'ipv4');
/**
 * IPv6: besides loopback, unique-local, link-local and multicast, every form that embeds an IPv4
 * address (mapped `::ffff:0:0/96`, translated `::ffff:0:0:0/96` as in `::ffff:0:7f00:1`, the old
 * compatible `::/96` as in `::7f00:1`, NAT64, 6to4, Teredo): a host that routes them may reach the
 * embedded address, whatever it is; a public IPv4 source is given as an IPv4 address.
 */
const PRIVATE_V6 = new BlockList();
for (const [net, bits] of [
  ['::', 96],
  ['::ffff:0:0', 96],
  ['::ffff:0:0:0', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 32],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  PRIVATE_V6.addSubnet(net, bits, 'ipv6');

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return PRIVATE_V4.check(address, 'ipv4');
  if (family === 6) return PRIVATE_V6.check(address, 'ipv6');
  return true;
}

/** The URL's last path segment as a file name, or `document`. */
export function nameFromUrl(u: URL): string {
  const segment = u.pathname.split('/').filter(Boolean).pop() ?? '';
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    decoded = segment; // a malformed % escape names the file as written, never a 500 (security round 3, F12)
  }
  const last = decoded.replace(/[^A-Za-z0-9._ -]/g, '_');
  return last && last !== '.' && last !== '..' ? last.slice(0, 200) : 'document';
}

/**
 * The address a hop connects to, checked: an IP literal as written, a name through one lookup
 * whose every answer must be public (unless allowed). The connection then goes to exactly this
 * address, so a name cannot resolve to a public address for the check and a private one for the
 * connection.
 */
async function addressOf(u: URL, allowPrivate: boolean): Promise<string> {
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const refuse = (what: string) =>
    new SourceError(
      400,
      `http source ${u.href.slice(0, 200)}: ${what} a private or local address; this service fetches only public addresses (--allow-private-sources allows others)`,
    );
  if (isIP(host)) {
    if (!allowPrivate && isPrivateAddress(host)) throw refuse(`${host} is`);
    return host;
  }
  let list: LookupAddress[];
  try {
    list = await dnsLookup(host, { all: true, verbatim: true });
  } catch (e) {
    throw new SourceError(502, `http source ${u.href.slice(0, 200)} could not be fetched: ${(e as Error).message}`);
  }
  const bad = list.find((a) => !allowPrivate && isPrivateAddress(a.address));
  if (bad) throw refuse(`${host} resolves to ${bad.address},`);
  if (list.length === 0) throw new SourceError(502, `http source ${u.href.slice(0, 200)}: ${host} resolves to nothing`);
  return list[0]!.address;
}

/** Client headers never sent on: they belong to the connection, not to the client. */
const CONNECTION_HEADERS = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'upgrade',
  'te',
  'keep-alive',
]);

/** One deadline over the whole exchange; an aborted one closes whatever is still open. */
class Deadline {
  private readonly abort = new AbortController();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly u: () => URL,
    private readonly timeoutMs: number,
  ) {
    this.timer = setTimeout(() => this.abort.abort(), timeoutMs);
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  private tooSlow(): SourceError {
    return new SourceError(
      504,
      `http source ${this.u().href.slice(0, 200)} took longer than ${this.timeoutMs / 1000} s`,
    );
  }

  /** Any step, bounded by the deadline: the step's own error, or 504 once the time is up. */
  inTime<T>(p: Promise<T>): Promise<T> {
    const signal = this.abort.signal;
    return new Promise<T>((resolve, reject) => {
      if (signal.aborted) return reject(this.tooSlow());
      const onAbort = () => reject(this.tooSlow());
      signal.addEventListener('abort', onAbort, { once: true });
      p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  end(): void {
    clearTimeout(this.timer);
    this.abort.abort(); // whatever is still open (a socket, a response) is closed with the request
  }
}

/** One GET to the checked address `to`, with the client's headers only on their own origin. */
function get(
  u: URL,
  to: { host: string; port: number },
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  const host = u.hostname.replace(/^\[|\]$/g, '');
  return new Promise<IncomingMessage>((resolve, reject) => {
    const req = (u.protocol === 'https:' ? httpsRequest : httpRequest)(
      {
        host: to.host,
        port: to.port,
        path: `${u.pathname}${u.search}`,
        method: 'GET',
        // The certificate is checked against the URL's name, not the address connected to.
        ...(u.protocol === 'https:' && !isIP(host) ? { servername: host } : {}),
        headers: { ...headers, 'user-agent': 'folio-serve', host: u.host },
        signal,
      },
      resolve,
    );
    req.on('error', reject);
    req.end();
  });
}

/** Where a redirect leads, checked: a URL, and never from https down to http. */
function redirectTarget(u: URL, location: string): URL {
  let next: URL;
  try {
    next = new URL(location, u);
  } catch {
    throw new SourceError(502, `http source ${u.href.slice(0, 200)} redirected to an address that is not a URL`);
  }
  if (u.protocol === 'https:' && next.protocol === 'http:')
    throw new SourceError(
      502,
      `http source ${u.href.slice(0, 200)} redirected from https to http (${next.href.slice(0, 200)}): not followed`,
    );
  return next;
}

/** The response's body into `dest` (created 0600, exclusive), at most `maxBytes`. */
function download(res: IncomingMessage, dest: string, u: URL, maxBytes: number, signal: AbortSignal): Promise<void> {
  const declared = Number(res.headers['content-length']);
  const tooLarge = (what: string) =>
    new SourceError(413, `http source ${u.href.slice(0, 200)} is ${what} this service's limit of ${maxBytes} bytes`);
  if (Number.isFinite(declared) && declared > maxBytes) {
    res.destroy();
    throw tooLarge(`${declared} bytes, larger than`);
  }
  return new Promise<void>((resolve, reject) => {
    const out = createWriteStream(dest, { flags: 'wx', mode: 0o600 });
    signal.addEventListener('abort', () => out.destroy(), { once: true });
    let got = 0;
    const fail = (e: Error) => {
      res.destroy();
      out.destroy();
      reject(e);
    };
    res.on('data', (d: Buffer) => {
      got += d.length;
      if (got > maxBytes) fail(tooLarge('larger than'));
    });
    res.on('error', (e) => fail(new SourceError(502, `http source ${u.href.slice(0, 200)}: ${e.message}`)));
    res.pipe(out);
    out.on('finish', () => resolve());
    out.on('error', (e) => fail(e));
  });
}

/** The URL a client gave, parsed; refused when fetching is off or it is not a URL. */
function sourceUrl(url: string, policy: HttpSourcePolicy): URL {
  if (!policy.enabled)
    throw new SourceError(
      400,
      'http_sources are off on this service: upload the file, send it in file_sources (base64), or start the service with --allow-http-sources',
    );
  try {
    return new URL(url);
  } catch {
    throw new SourceError(400, `http source "${String(url).slice(0, 200)}" is not a URL`);
  }
}

/** A hop's URL: http(s) only, no credentials in it. */
function checkHop(u: URL): void {
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new SourceError(400, `http source ${u.href.slice(0, 200)}: only http and https URLs are fetched`);
  if (u.username || u.password)
    throw new SourceError(400, `http source ${u.origin}: credentials in the URL are not accepted (send a header)`);
}

/**
 * Downloads `url` into `dest` (created 0600, exclusive). Throws a SourceError naming the URL
 * and the reason: disabled, not http(s), private address, too large, too slow, HTTP error.
 *
 * One deadline covers the whole exchange, every hop (lookup, connect, headers, body); a response
 * that is not used (a redirect, an error) is destroyed, never drained (security round 3, F3).
 * The client's headers go only to the URL's own origin: a redirect to another origin drops them,
 * and a redirect from https to http is refused (F5).
 */
export async function fetchSource(
  url: string,
  headers: Record<string, string>,
  dest: string,
  policy: HttpSourcePolicy,
): Promise<{ name: string; contentType?: string }> {
  let u = sourceUrl(url, policy);
  const origin = u.origin;
  const own = Object.fromEntries(Object.entries(headers).filter(([k]) => !CONNECTION_HEADERS.has(k.toLowerCase())));
  const deadline = new Deadline(() => u, policy.timeoutMs);
  try {
    for (let hop = 0; hop <= 3; hop++) {
      checkHop(u);
      const address = await deadline.inTime(addressOf(u, policy.allowPrivate));
      const port = Number(u.port) || (u.protocol === 'https:' ? 443 : 80);
      const to = policy.connectForTest?.(address, port) ?? { host: address, port };
      const res = await deadline
        .inTime(get(u, to, u.origin === origin ? own : {}, deadline.signal))
        .catch((e: unknown) => {
          if (e instanceof SourceError) throw e;
          throw new SourceError(
            502,
            `http source ${u.href.slice(0, 200)} could not be fetched: ${(e as Error).message}`,
          );
        });
      if (res.statusCode && res.statusCode >= 300 && res.statusCode < 400 && res.headers.location) {
        res.destroy();
        u = redirectTarget(u, res.headers.location);
        continue;
      }
      if (res.statusCode !== 200) {
        res.destroy();
        throw new SourceError(502, `http source ${u.href.slice(0, 200)} answered HTTP ${res.statusCode}`);
      }
      await deadline.inTime(download(res, dest, u, policy.maxBytes, deadline.signal));
      return { name: nameFromUrl(u), contentType: res.headers['content-type'] };
    }
    throw new SourceError(502, `http source ${url.slice(0, 200)}: more than 3 redirects`);
  } finally {
    deadline.end();
  }
}
