/**
 * Redis connections for BullMQ (ioredis). Reconnects forever with a capped backoff and says so
 * on each try, so a worker started before Redis, or cut off from it, waits and tells the
 * operator why instead of exiting or hanging silently.
 */
import IORedis, { type Redis } from 'ioredis';
import { checkRedisUrl, redactUrl } from '../util/redisUrl';

export { checkRedisUrl, redactUrl };

export function connectRedis(url: string, log: (message: string) => void): Redis {
  checkRedisUrl(url);
  const shown = redactUrl(url);
  let lastError = '';
  // A password from the environment keeps it out of the process list and the Compose command;
  // one in the URL wins.
  const envPassword = process.env.FOLIO_REDIS_PASSWORD;
  const redis = new IORedis(url, {
    ...(envPassword && !new URL(url).password ? { password: envPassword } : {}),
    // BullMQ's blocking commands need this; requests wait for the connection instead of failing.
    maxRetriesPerRequest: null,
    retryStrategy: (times) => {
      const delay = Math.min(250 * 2 ** Math.min(times - 1, 5), 5000);
      log(
        `cannot reach Redis at ${shown}${lastError ? ` (${lastError})` : ''}; retrying in ${(delay / 1000).toFixed(1)} s (attempt ${times})`,
      );
      return delay;
    },
  });
  redis.on('error', (e: Error) => {
    lastError = (e as NodeJS.ErrnoException).code ?? e.message;
  });
  redis.on('ready', () => {
    if (lastError) log(`connected to Redis at ${shown}`);
    lastError = '';
  });
  return redis;
}
