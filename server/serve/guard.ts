/**
 * The service's gate, checked on every request before any route runs (issue 21 items 1 and 10):
 *
 * 1. the request target must be origin-form (`/path?query`): an absolute-form target
 *    (`http://host/v1/...`), `*` or anything else is refused, so no route is reached by a
 *    spelling the checks below did not see;
 * 2. too many connections → 503 (the connection is closed after the answer); connections that
 *    have not proved the key are bounded in time and in number (`ConnectionGuard`);
 * 3. the Host header must name this service: an IP literal, `localhost`, or a name given with
 *    `--allow-host` (DNS rebinding: a web page whose name resolves to 127.0.0.1 sends its own
 *    name as Host);
 * 4. a browser's cross-site request is refused: `Origin` must be this service's own origin or one
 *    given with `--allow-origin`, and `Sec-Fetch-Site: cross-site` is refused;
 * 5. the API key, on every route except the public ones (health, readiness, version, the API
 *    description). The decision uses the route Fastify matched — after it decoded the path — never
 *    the raw URL: `/%761/convert/file` is the route `/v1/convert/file` and needs the key. On the
 *    WebSocket status route alone the key may also come as `?api_key=` (browsers cannot set a
 *    header on a WebSocket handshake; docling-client sends it there), compared the same way.
 */
import { timingSafeEqual } from 'node:crypto';
import { isIP, type Socket } from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';

export interface GateConfig {
  apiKey?: string;
  /** Host names accepted besides IP literals and `localhost`; `*` accepts any. */
  allowedHosts: string[];
  /** Origins (`https://app.example:8443`) accepted besides the service's own; `*` accepts any. */
  allowedOrigins: string[];
  maxConnections: number;
}

/** Routes (as registered) that answer without the key. */
export const PUBLIC_ROUTES = new Set(['/health', '/ready', '/version', '/openapi.json', '/docs']);

/** Routes (as registered) that also take the key as the `api_key` query parameter, docling-serve's way there. */
export const QUERY_KEY_ROUTES = new Set(['/v1/status/ws/:task_id']);
/** docling-serve's 401 detail on that route. */
const QUERY_KEY_REQUIRED = 'Api key is required as the ?api_key=SECRET query parameter.';

export interface GateRefusal {
  status: number;
  code: string;
  message: string;
  headers?: Record<string, string>;
}

export function keyMatches(expected: string | undefined, given: unknown): boolean {
  if (!expected) return true;
  if (typeof given !== 'string') return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `host[:port]` → the host name, lower case, brackets of an IPv6 literal removed; undefined when malformed. */
export function hostName(header: string): string | undefined {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    if (end < 0) return undefined;
    const rest = h.slice(end + 1);
    if (rest !== '' && !/^:\d{1,5}$/.test(rest)) return undefined;
    return h.slice(1, end);
  }
  const m = /^([a-z0-9._-]+)(?::\d{1,5})?$/.exec(h);
  return m ? m[1] : undefined;
}

export function hostAllowed(header: string | undefined, allowed: string[]): boolean {
  if (!header) return false;
  const name = hostName(header);
  if (!name) return false;
  if (isIP(name) || name === 'localhost') return true;
  return allowed.some((a) => a === '*' || a.toLowerCase() === name);
}

function originAllowed(origin: string, host: string | undefined, allowed: string[]): boolean {
  if (allowed.includes('*')) return true;
  let u: URL;
  try {
    u = new URL(origin);
  } catch {
    return false; // "null" (sandboxed frames, file: pages) and garbage
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return false;
  if (allowed.some((a) => a.replace(/\/$/, '').toLowerCase() === u.origin.toLowerCase())) return true;
  // Same origin: the page was served by this very host:port.
  return host !== undefined && u.host.toLowerCase() === host.trim().toLowerCase();
}

/** How long a connection's life is bounded while it has not proved it holds the key (security round 4, N3). */
export interface ConnectionTimeouts {
  /** A new connection must send a complete request that passes the gate with the key within this. */
  admitMs: number;
  /** A request body that sends no byte for this long: closed. */
  idleMs: number;
}

export const DEFAULT_CONNECTION_TIMEOUTS: ConnectionTimeouts = { admitMs: 10_000, idleMs: 30_000 };

interface ConnState {
  opened: number;
  /** A request on it passed the gate with the key (or the service has none). */
  proven: boolean;
  /** Upgraded to a WebSocket: the status socket's own limits apply from then on. */
  upgraded: boolean;
  /** Requests whose answer has not been sent yet. */
  inFlight: number;
  /** The latest request: its body is still arriving while `complete` is false. */
  req?: IncomingMessage;
  /** When bytes last arrived (or a request ended). */
  lastActive: number;
  lastBytes: number;
}

/**
 * The server's connection slots (security round 4, N3). Before, only connections past the limit
 * had a timeout: 64 idle sockets, or 64 keyless requests trickling a body, held every slot for
 * 60–312 s without the key. Now, whether or not the pool is full:
 *
 * - a connection that has not sent a complete request passing the gate with the key within
 *   `admitMs` (10 s) is closed; requests to the public routes (health, version…) are served on it
 *   meanwhile;
 * - when the slots run out, a new connection takes the slot of the oldest idle connection that has
 *   not proved the key: keyless connections share what a client with the key does not hold, and a
 *   flood of keyless sockets cannot keep out a client that has the key (nor a /health probe);
 * - a body that sends nothing for `idleMs` (30 s) is closed; so is a connection whose answer went
 *   out before its body was read (a refusal: the body is never drained); a kept-alive connection
 *   with the key between requests is left to the keep-alive timeout its client was told;
 * - past `max` connections, a new one is answered 503 and closed (5 s if it sends nothing).
 *
 * Bytes arriving are seen through `socket.bytesRead` (the HTTP parser reads the socket itself, so
 * no `data` event fires), checked by one timer for all connections.
 */
export class ConnectionGuard {
  private readonly conns = new Map<Socket, ConnState>();
  private readonly excess = new WeakSet<Socket>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    server: Server,
    readonly max: number,
    private readonly timeouts: ConnectionTimeouts = DEFAULT_CONNECTION_TIMEOUTS,
  ) {
    server.on('connection', (sock: Socket) => this.opened(sock));
    server.once('close', () => clearInterval(this.timer));
    const tick = Math.max(50, Math.min(1000, Math.floor(Math.min(timeouts.admitMs, timeouts.idleMs) / 5)));
    this.timer = setInterval(() => this.sweep(), tick);
    this.timer.unref();
  }

  /** Whether the connection is past the limit (answered 503). */
  has(sock: Socket): boolean {
    return this.excess.has(sock);
  }

  /** Connections open now that have not proved the key (for tests and the log). */
  get unproven(): number {
    let n = 0;
    for (const c of this.conns.values()) if (!c.proven) n++;
    return n;
  }

  private opened(sock: Socket): void {
    const now = Date.now();
    this.conns.set(sock, {
      opened: now,
      proven: false,
      upgraded: false,
      inFlight: 0,
      lastActive: now,
      lastBytes: 0,
    });
    sock.once('close', () => this.conns.delete(sock));
    // Past the limit, a connection that has not proved the key makes room (the oldest idle one):
    // one, never a connection with the key, and never several for one arrival (a client that
    // reconnects at once when closed would otherwise set off a chain of closes per arrival).
    if (this.conns.size > this.max) {
      const victim = this.oldestIdleUnproven(sock);
      if (victim) {
        this.conns.delete(victim);
        victim.destroy();
      }
    }
    if (this.conns.size > this.max) {
      this.excess.add(sock);
      sock.setTimeout(5000, () => sock.destroy());
    }
  }

  private oldestIdleUnproven(except: Socket): Socket | undefined {
    let best: [Socket, ConnState] | undefined;
    for (const e of this.conns)
      if (e[0] !== except && !e[1].proven && e[1].inFlight === 0 && (!best || e[1].opened < best[1].opened)) best = e;
    return best?.[0];
  }

  /**
   * A request's headers passed the gate (`proven`: with the key). Tracks its body and answer: an
   * answer sent before the body was read closes the connection instead of reading the rest.
   */
  begin(req: IncomingMessage, res: ServerResponse, proven: boolean): void {
    const sock = req.socket;
    const c = this.conns.get(sock);
    if (!c) return;
    if (proven) c.proven = true;
    if (proven && req.headers.upgrade !== undefined) c.upgraded = true;
    c.inFlight++;
    c.req = req;
    c.lastActive = Date.now();
    c.lastBytes = sock.bytesRead;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      c.inFlight--;
      c.lastActive = Date.now();
      if (!req.complete && !c.upgraded) {
        // The answer went out before the body was read (a refusal): close rather than read on.
        sock.end();
        setTimeout(() => sock.destroy(), 2000).unref();
      }
    };
    res.once('finish', finish);
    res.once('close', finish);
  }

  private sweep(): void {
    const now = Date.now();
    const { admitMs, idleMs } = this.timeouts;
    for (const [sock, c] of this.conns) {
      if (c.upgraded) continue;
      const bytes = sock.bytesRead;
      if (bytes !== c.lastBytes) {
        c.lastBytes = bytes;
        c.lastActive = now;
      }
      const receiving = c.inFlight > 0 && c.req !== undefined && !c.req.complete;
      const late =
        (!c.proven && now - c.opened > admitMs && c.inFlight === 0) ||
        (c.proven && receiving && now - c.lastActive > idleMs);
      if (late) {
        this.conns.delete(sock);
        sock.destroy();
      }
    }
  }
}

/**
 * CORS for the origins given with `--allow-origin` (never for others, never for the service's
 * own pages, which need none): the headers a browser needs to let that page read the answer and
 * send `X-Api-Key`.
 */
export function corsHeaders(cfg: GateConfig, req: FastifyRequest): Record<string, string> | undefined {
  const origin = req.headers.origin;
  if (origin === undefined || cfg.allowedOrigins.length === 0) return undefined;
  const listed =
    cfg.allowedOrigins.includes('*') ||
    cfg.allowedOrigins.some((a) => a.replace(/\/$/, '').toLowerCase() === origin.toLowerCase());
  if (!listed) return undefined;
  return {
    'access-control-allow-origin': origin,
    vary: 'Origin',
    'access-control-allow-methods': 'GET, POST',
    'access-control-allow-headers': 'X-Api-Key, Content-Type, Accept',
    'access-control-max-age': '600',
  };
}

/** The checks in the order above; undefined when the request may go on. */
export function gate(
  cfg: GateConfig,
  excess: { has(s: Socket): boolean },
  req: FastifyRequest,
): GateRefusal | undefined {
  const target = req.raw.url ?? '';
  if (!target.startsWith('/')) {
    return {
      status: 400,
      code: 'bad_request_target',
      message: 'the request target must be a path (origin-form, "/v1/..."), not an absolute URL or "*"',
    };
  }
  if (excess.has(req.raw.socket)) {
    return {
      status: 503,
      code: 'too_many_connections',
      message: `this service takes at most ${cfg.maxConnections} connections at once: retry later`,
      headers: { 'retry-after': '5', connection: 'close' },
    };
  }
  const host = req.headers.host;
  if (!hostAllowed(host, cfg.allowedHosts)) {
    return {
      status: 403,
      code: 'host_not_allowed',
      message: `Host "${String(host ?? '').slice(0, 100)}" is not a name of this service: use its IP address or localhost, or start it with --allow-host <name>`,
    };
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !originAllowed(origin, host, cfg.allowedOrigins)) {
    return {
      status: 403,
      code: 'origin_not_allowed',
      message: `requests from the web page at ${origin.slice(0, 100)} are not accepted: start the service with --allow-origin <origin> to allow it`,
    };
  }
  if (origin === undefined && req.headers['sec-fetch-site'] === 'cross-site') {
    return { status: 403, code: 'origin_not_allowed', message: 'cross-site requests from web pages are not accepted' };
  }
  // A CORS preflight from an allowed origin carries no key (browsers never send one on it): answered 204 in app.ts.
  if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] && corsHeaders(cfg, req))
    return { status: 204, code: 'preflight', message: '' };
  const route = req.routeOptions.url;
  if (route !== undefined && PUBLIC_ROUTES.has(route)) return undefined;
  if (keyMatches(cfg.apiKey, req.headers['x-api-key'])) return undefined;
  if (route !== undefined && QUERY_KEY_ROUTES.has(route)) {
    // A repeated parameter is a list, never a match.
    const given = (req.query as Record<string, unknown> | undefined)?.api_key;
    if (keyMatches(cfg.apiKey, given)) return undefined;
    return { status: 401, code: 'unauthorized', message: QUERY_KEY_REQUIRED };
  }
  return { status: 401, code: 'unauthorized', message: 'missing or wrong API key: send it in the X-Api-Key header' };
}

export function refuse(reply: FastifyReply, r: GateRefusal): FastifyReply {
  if (r.headers) reply.headers(r.headers);
  // `detail` as FastAPI (docling-serve) answers, which docling-client shows; `error` as every Folio error.
  return reply
    .code(r.status)
    .send({ detail: r.message, error: { status: r.status, code: r.code, message: r.message } });
}

/**
 * The request target as it may be logged: the value of every `api_key` query parameter (the
 * name as the query parser reads it: percent-decoded, `+` as space) replaced, so a key sent on
 * the WebSocket status route never reaches a log.
 */
export function redactQueryKey(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const parts = url
    .slice(q + 1)
    .split('&')
    .map((p) => {
      const eq = p.indexOf('=');
      const name = eq < 0 ? p : p.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        /* malformed escapes: compare as written */
      }
      return decoded.trim().toLowerCase() === 'api_key' ? `${name}=[redacted]` : p;
    });
  return `${url.slice(0, q + 1)}${parts.join('&')}`;
}
