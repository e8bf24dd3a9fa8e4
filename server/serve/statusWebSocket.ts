/**
 * docling-serve's WebSocket status route, `/v1/status/ws/{task_id}` (docling-serve 1.31.0,
 * app.py `task_status_ws`; the messages are docling's `WebsocketMessage`:
 * `{"message": "connection"|"update"|"error", "task": TaskStatusResponse|null, "error": str|null}`).
 *
 * On connect: an unknown (or malformed) task id → an `error` message "Task not found." and close;
 * otherwise a `connection` message and an `update` message, each with the status the poll route
 * answers. Every text message from the client asks for another `update`; the service also sends
 * one when the task's status changes (docling-serve's notifier does this on its own events; here
 * the status is read every POLL_MS). Once the task has ended the last update is followed by a
 * normal close (1000), as docling-serve closes on `is_completed()`.
 *
 * The upgrade request passes guard.ts like every request (Host, Origin — a browser always sends
 * Origin on a WebSocket handshake, so a page on another origin is refused before the upgrade —
 * and the API key, which on this route may come as `?api_key=`, as docling-client sends it).
 * Bounded: at most `maxSockets` at once (more get docling-serve's busy message and close 1013),
 * a socket with nothing sent either way for `idleMs` is closed, and each socket's messages, status
 * reads and unread bytes are bounded (watchTask).
 */
import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import { TASK_ID } from '../queue/keys';
import type { Job, Jobs, StatusBody } from './jobs';

export const STATUS_WS_ROUTE = '/v1/status/ws/:task_id';

export interface StatusSocketLimits {
  /** Status sockets open at once; more are told the service is busy and closed. */
  maxSockets: number;
  /** Close a socket when nothing was sent or received for this long. */
  idleMs: number;
}

export const DEFAULT_STATUS_SOCKETS: StatusSocketLimits = { maxSockets: 32, idleMs: 300_000 };

/**
 * Client messages a socket may send: a burst of `burst`, then `perSecond` on average; past that
 * the socket is closed (1008). Each message asks for one status read and one update.
 */
export const WS_MESSAGE_RATE = { burst: 20, perSecond: 2 };
/** Bytes queued for a client that does not read: past this its socket is dropped (security round 4, N4). */
export const WS_MAX_BUFFERED = 64 * 1024;

/** How often an open socket's task status is read to push its changes. */
const POLL_MS = 250;
/** Client messages are only requests for an update: a few bytes. */
export const STATUS_WS_MAX_PAYLOAD = 4096;

// docling-serve's own texts (docling-client shows them).
const NOT_FOUND = 'Task not found.';
const BUSY = 'Server is busy, please try again shortly.';

type Kind = 'connection' | 'update' | 'error';

/** docling's `WebsocketMessage.model_dump_json()`: every field present, absent ones null. */
export function wsMessage(kind: Kind, task?: StatusBody, error?: string): string {
  return JSON.stringify({ message: kind, task: task ?? null, error: error ?? null });
}

const ended = (s: StatusBody) => s.task_status !== 'pending' && s.task_status !== 'started';

export function registerStatusWebSocket(app: FastifyInstance, jobs: Jobs, limits: StatusSocketLimits): void {
  let open = 0;
  app.get<{ Params: { task_id: string } }>(STATUS_WS_ROUTE, { websocket: true }, (socket, req) => {
    if (open >= limits.maxSockets) {
      socket.send(wsMessage('error', undefined, BUSY));
      socket.close(1013, 'too many status sockets');
      return;
    }
    open++;
    socket.once('close', () => open--);
    watchTask(socket, jobs, req.params.task_id, limits.idleMs);
  });
}

/** Closes a socket that sent past the rate; a flooding client may not read the close, so it goes a moment later regardless. */
function closeFlooded(socket: WebSocket, stop: () => void): true {
  stop();
  socket.close(1008, 'too many messages');
  setTimeout(() => socket.terminate(), 1000).unref();
  return true;
}

/** Whether one more client message fits `WS_MESSAGE_RATE` (a token bucket per socket). */
function messageRate(): () => boolean {
  let tokens = WS_MESSAGE_RATE.burst;
  let refilled = Date.now();
  return () => {
    const now = Date.now();
    tokens = Math.min(WS_MESSAGE_RATE.burst, tokens + ((now - refilled) / 1000) * WS_MESSAGE_RATE.perSecond);
    refilled = now;
    if (tokens < 1) return false;
    tokens--;
    return true;
  };
}

/**
 * One socket's conversation. Everything it sends goes through one promise chain, so the
 * `connection` message comes first and updates never overtake each other. Bounded per socket
 * (security round 4, N4: each 7-byte frame queued a status read and a 430-byte update, and a
 * client that never read grew the service by 340 MB in 40 s): at most one status read is in
 * flight and one more waits, however many messages ask (the rest are answered by that one);
 * messages past `WS_MESSAGE_RATE` close the socket; and a client whose unread updates pass
 * `WS_MAX_BUFFERED` bytes is dropped.
 */
function watchTask(socket: WebSocket, jobs: Jobs, id: string, idleMs: number): void {
  let chain: Promise<void> = Promise.resolve();
  let job: Job | undefined;
  let last = '';
  let polling = false;
  /** A client-asked update is queued on the chain and not started yet: more messages join it. */
  let asked = false;
  const allowed = messageRate();
  let idle: NodeJS.Timeout | undefined;
  let poller: NodeJS.Timeout | undefined;
  const live = () => socket.readyState === socket.OPEN;
  const touch = () => {
    if (idle) clearTimeout(idle);
    idle = setTimeout(() => socket.close(1000, 'idle'), idleMs);
  };
  const stop = () => {
    if (idle) clearTimeout(idle);
    if (poller) clearInterval(poller);
  };
  const send = (text: string) => {
    if (!live()) return;
    if (socket.bufferedAmount + text.length > WS_MAX_BUFFERED) {
      // The client is not reading what it asked for: nothing more is queued for it.
      stop();
      socket.terminate();
      return;
    }
    socket.send(text);
    touch();
  };
  const run = (step: () => Promise<void>) => {
    chain = chain.then(step).catch(() => {
      // The status could not be read (the queue's Redis gone): say so, as docling-serve does, and end.
      send(wsMessage('error', undefined, BUSY));
      socket.close(1011, 'status unavailable');
    });
  };
  /** Sends the task's status as `kind`; with `onlyIfChanged`, only when it differs from the last sent. */
  const report = async (kind: Kind, onlyIfChanged = false) => {
    if (!job || !live()) return;
    const s = await jobs.status(job);
    const text = JSON.stringify(s);
    if (onlyIfChanged && text === last) return;
    last = text;
    send(wsMessage(kind, s));
    if (ended(s)) {
      stop();
      socket.close(1000);
    }
  };
  socket.on('close', stop);
  // Each text message from the client is a request for an update (its content is not read).
  let flooded = false;
  socket.on('message', () => {
    if (!live() || flooded) return;
    if (!allowed()) return void (flooded = closeFlooded(socket, stop));
    touch();
    if (asked) return; // an update not yet read answers this message too
    asked = true;
    run(() => {
      asked = false;
      return report('update');
    });
  });
  touch();
  run(async () => {
    // A malformed id names no task, and never reaches the store or the queue's keys.
    job = TASK_ID.test(id) ? await jobs.find(id) : undefined;
    if (!job) {
      send(wsMessage('error', undefined, NOT_FOUND));
      socket.close(1000);
      return;
    }
    const s = await jobs.status(job);
    send(wsMessage('connection', s));
    await report('update');
    if (!live()) return;
    poller = setInterval(() => {
      if (polling) return;
      polling = true;
      run(() => report('update', true).finally(() => (polling = false)));
    }, POLL_MS);
  });
}
