import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the site answers one path; `hit` counts the requests of that path, this one included. */
export type Route = (req: IncomingMessage, res: ServerResponse, hit: number) => void;

export interface RoutedSite {
  url: string;
  port: number;
  routes: Map<string, Route>;
  hits: Map<string, number>;
  /** Paths whose request was closed before a response was sent (the client gave up). */
  abandoned: Set<string>;
  close(): Promise<void>;
}

/**
 * A local website for crawling tests, on 127.0.0.1 and `port` (default: a free one): routes by path (set and
 * change them while the test runs; an unknown path answers 404), counts requests per path, and
 * notes the requests the client gave up on before a response was sent.
 */
export async function startRoutedSite(port = 0): Promise<RoutedSite> {
  const routes = new Map<string, Route>();
  const hits = new Map<string, number>();
  const abandoned = new Set<string>();
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const hit = (hits.get(path) ?? 0) + 1;
    hits.set(path, hit);
    res.on('close', () => {
      if (!res.writableEnded) abandoned.add(path);
    });
    const route = routes.get(path);
    if (route) route(req, res, hit);
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    routes,
    hits,
    abandoned,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
