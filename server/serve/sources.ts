/**
 * Inputs that are not multipart uploads: docling-serve's `file_sources` / `sources[kind=file]`
 * (base64 in the JSON body) and `http_sources` / `sources[kind=http]` (the service fetches a URL).
 *
 * Fetching is off unless the service was started with `--allow-http-sources`; even then a URL
 * whose host is (or resolves to) a loopback, private, link-local, or otherwise non-public address
 * is refused unless `--allow-private-sources` — the check is made on the address actually
 * connected to (the lookup the connection uses), so a name cannot resolve to a public address for
 * the check and a private one for the connection. Each response is held to the upload size
 * limit and a total time; redirects are followed (at most 3), each hop checked the same way.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
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
}

/** Addresses a URL source may not reach without --allow-private-sources. */
const PRIVATE = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  PRIVATE.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['::ffff:0:0', 96],
  ['64:ff9b::', 96],
] as const)
  PRIVATE.addSubnet(net, bits, 'ipv6');

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 6 && /^::ffff:/i.test(address)) {
    const v4 = address.slice(7);
    if (isIP(v4) === 4) return PRIVATE.check(v4, 'ipv4');
  }
  return PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** A lookup for http.request that refuses private answers (unless allowed). */
function checkedLookup(allowPrivate: boolean) {
  return (
    hostname: string,
    options: object,
    cb: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return cb(err, '');
      const list = addresses as LookupAddress[];
      const bad = list.find((a) => !allowPrivate && isPrivateAddress(a.address));
      if (bad || list.length === 0) {
        const e: NodeJS.ErrnoException = new Error(
          `${hostname} resolves to ${bad?.address ?? 'nothing'}, a private or local address: this service fetches only public addresses`,
        );
        e.code = 'EFOLIOPRIVATE';
        return cb(e, '');
      }
      if ((options as { all?: boolean }).all) cb(null, list);
      else cb(null, list[0]!.address, list[0]!.family);
    });
  };
}

/** The URL's last path segment as a file name, or `document`. */
export function nameFromUrl(u: URL): string {
  const last = decodeURIComponent(u.pathname.split('/').filter(Boolean).pop() ?? '').replace(/[^A-Za-z0-9._ -]/g, '_');
  return last && last !== '.' && last !== '..' ? last.slice(0, 200) : 'document';
}

/**
 * Downloads `url` into `dest` (created 0600, exclusive). Throws a SourceError naming the URL
 * and the reason: disabled, not http(s), private address, too large, too slow, HTTP error.
 */
export async function fetchSource(
  url: string,
  headers: Record<string, string>,
  dest: string,
  policy: HttpSourcePolicy,
): Promise<{ name: string; contentType?: string }> {
  if (!policy.enabled)
    throw new SourceError(
      400,
      'http_sources are off on this service: upload the file, send it in file_sources (base64), or start the service with --allow-http-sources',
    );
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new SourceError(400, `http source "${String(url).slice(0, 200)}" is not a URL`);
  }
  const deadline = Date.now() + policy.timeoutMs;
  for (let hop = 0; hop <= 3; hop++) {
    if (u.protocol !== 'http:' && u.protocol !== 'https:')
      throw new SourceError(400, `http source ${u.href.slice(0, 200)}: only http and https URLs are fetched`);
    if (u.username || u.password)
      throw new SourceError(400, `http source ${u.origin}: credentials in the URL are not accepted (send a header)`);
    const literal = u.hostname.replace(/^\[|\]$/g, '');
    if (isIP(literal) && !policy.allowPrivate && isPrivateAddress(literal)) {
      throw new SourceError(
        400,
        `http source ${u.href.slice(0, 200)}: ${literal} is a private or local address; this service fetches only public addresses (--allow-private-sources allows others)`,
      );
    }
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = (u.protocol === 'https:' ? httpsRequest : httpRequest)(
        u,
        {
          method: 'GET',
          headers: { 'user-agent': 'folio-serve', ...headers },
          lookup: checkedLookup(policy.allowPrivate) as never,
          timeout: Math.max(1, deadline - Date.now()),
        },
        resolve,
      );
      req.on('timeout', () => req.destroy(new Error('timed out')));
      req.on('error', reject);
      req.end();
    }).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'EFOLIOPRIVATE')
        throw new SourceError(
          400,
          `http source ${u.href.slice(0, 200)}: ${e.message} (--allow-private-sources allows others)`,
        );
      throw new SourceError(502, `http source ${u.href.slice(0, 200)} could not be fetched: ${e.message}`);
    });
    if (res.statusCode && res.statusCode >= 300 && res.statusCode < 400 && res.headers.location) {
      res.resume();
      u = new URL(res.headers.location, u);
      continue;
    }
    if (res.statusCode !== 200) {
      res.resume();
      throw new SourceError(502, `http source ${u.href.slice(0, 200)} answered HTTP ${res.statusCode}`);
    }
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > policy.maxBytes) {
      res.destroy();
      throw new SourceError(
        413,
        `http source ${u.href.slice(0, 200)} is ${declared} bytes, larger than this service's limit of ${policy.maxBytes} bytes`,
      );
    }
    await new Promise<void>((resolve, reject) => {
      const out = createWriteStream(dest, { flags: 'wx', mode: 0o600 });
      let got = 0;
      const timer = setTimeout(
        () =>
          fail(
            new SourceError(504, `http source ${u.href.slice(0, 200)} took longer than ${policy.timeoutMs / 1000} s`),
          ),
        Math.max(1, deadline - Date.now()),
      );
      const fail = (e: Error) => {
        clearTimeout(timer);
        res.destroy();
        out.destroy();
        reject(e);
      };
      res.on('data', (d: Buffer) => {
        got += d.length;
        if (got > policy.maxBytes)
          fail(
            new SourceError(
              413,
              `http source ${u.href.slice(0, 200)} is larger than this service's limit of ${policy.maxBytes} bytes`,
            ),
          );
      });
      res.on('error', (e) => fail(new SourceError(502, `http source ${u.href.slice(0, 200)}: ${e.message}`)));
      res.pipe(out);
      out.on('finish', () => {
        clearTimeout(timer);
        resolve();
      });
      out.on('error', (e) => fail(e));
    });
    return { name: nameFromUrl(u), contentType: res.headers['content-type'] };
  }
  throw new SourceError(502, `http source ${url.slice(0, 200)}: more than 3 redirects`);
}
