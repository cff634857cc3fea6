import type { ServerOptions } from 'node:http';
import type { Server, Socket } from 'node:net';

export interface HttpLimits {
  httpHeadersTimeoutMs: number;
  httpRequestTimeoutMs: number;
  httpConnectionsCheckIntervalMs: number;
}

/**
 * Node's HTTP server options for a public edge: a client has `httpHeadersTimeoutMs` to send the
 * request line and headers (an idle new connection included) and `httpRequestTimeoutMs` to send
 * the whole request, body included; connections are checked every
 * `httpConnectionsCheckIntervalMs`. Both limits end once the request has arrived, so a response
 * that takes long (a chat stream over SSE) is not cut. Fastify also needs `requestTimeout` itself:
 * it overwrites the server's with its own (0, none, by default).
 */
export function edgeServerOptions(limits: HttpLimits): { http: ServerOptions; requestTimeout: number } {
  const requestTimeout = limits.httpRequestTimeoutMs;
  return {
    http: {
      headersTimeout: Math.min(limits.httpHeadersTimeoutMs, requestTimeout),
      requestTimeout,
      connectionsCheckingInterval: limits.httpConnectionsCheckIntervalMs,
    },
    requestTimeout,
  };
}

const refused = new WeakSet<Socket>();

/** Whether the socket was refused by limitConnectionsPerAddress (a request on it must not be handled). */
export function isRefusedConnection(socket: Socket | null | undefined): boolean {
  return !!socket && refused.has(socket);
}

/**
 * At most `max` open connections per client address (0: no cap). One more is answered at once
 * with 429 in the spec's error body and closed, before anything is read from it. The address is
 * the socket's: behind a reverse proxy every client has the proxy's address, so there the cap
 * must allow for all clients together (or be 0, with the proxy enforcing its own).
 */
export function limitConnectionsPerAddress(server: Server, max: number): void {
  if (max <= 0) return;
  const open = new Map<string, number>();
  const body = JSON.stringify({ error: 'Too Many Requests', code: 'rate_limited', message: `Too many open connections from this address (at most ${max})`, retry_after: 1 });
  const answer =
    'HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json; charset=utf-8\r\nRetry-After: 1\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
  // A request that still arrives on a refused connection is dropped unanswered (installHttpPolicy).
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const count = (open.get(address) ?? 0) + 1;
    if (count > max) {
      refused.add(socket);
      socket.on('error', () => undefined);
      socket.end(answer);
      setTimeout(() => socket.destroy(), 1000).unref();
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}
