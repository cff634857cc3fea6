import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * Real HTTP servers on a loopback address and a random port, for the guard's integration tests:
 * they record every request and count TCP connections (a blocked target must see none). Loopback
 * is blocked by default, so tests allow exactly the server, as an operator would with
 * OUTBOUND_ALLOW_CIDRS.
 */
export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, srv: TestServer) => void;

export interface TestServer {
  host: string;
  port: number;
  /** TCP connections accepted. */
  connections: number;
  requests: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[];
  url(path?: string): string;
  close(): Promise<void>;
  timers: NodeJS.Timeout[];
}

/** Servers started and not closed yet: closeServers() in afterEach. */
const servers: TestServer[] = [];

export async function startServer(handler: Handler, host = '127.0.0.1'): Promise<TestServer> {
  const sockets = new Set<Socket>();
  const server = http.createServer();
  const srv: TestServer = {
    host,
    port: 0,
    connections: 0,
    requests: [],
    timers: [],
    url: (path = '/') => `http://${host.includes(':') ? `[${host}]` : host}:${srv.port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        srv.timers.forEach(clearTimeout);
        sockets.forEach((s) => s.destroy());
        server.close(() => resolve());
      }),
  };
  server.on('connection', (socket) => {
    srv.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('request', (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      srv.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() });
      handler(req, res, srv);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  srv.port = (server.address() as AddressInfo).port;
  servers.push(srv);
  return srv;
}

export async function closeServers(): Promise<void> {
  await Promise.all(servers.splice(0).map((s) => s.close()));
}
