/**
 * A Redis URL's check and its printable form, without ioredis: the command lines check
 * `--redis` when they read it (server/flags), and `folio convert` does not load ioredis.
 */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}

export function checkRedisUrl(url: string): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`"${url}" is not a Redis URL: use redis://host:6379 (or rediss:// for TLS)`);
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:')
    throw new Error(`"${redactUrl(url)}" is not a Redis URL: use redis://host:6379 (or rediss:// for TLS)`);
}
