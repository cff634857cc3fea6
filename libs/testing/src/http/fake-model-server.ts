import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a fake model server saw of one request. */
export interface SeenRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  /** The JSON body ({} when empty). */
  body: Record<string, unknown>;
  /** Resolves when the client closed the connection before the server finished the response. */
  closedEarly: Promise<void>;
}

export interface FakeModelServer {
  /** `http://127.0.0.1:<port>`, without a path. */
  url: string;
  /** Every request, in arrival order. */
  seen: SeenRequest[];
  /** Stops the server (again: a no-op). */
  close(): Promise<void>;
}

/**
 * A local HTTP server standing in for a model provider (an OpenAI-compatible server, Ollama) in
 * integration tests: `handle` writes each response, at its own pace, in whatever wire format the
 * test needs. A handler that throws gets a 500 (or the connection cut, once the response started),
 * so a bug in a test's fake shows as a failed model call, never as a hang. close() ends
 * connections still open.
 */
export async function startFakeModelServer(handle: (seen: SeenRequest, res: ServerResponse) => void | Promise<void>): Promise<FakeModelServer> {
  const seen: SeenRequest[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const parts: Buffer[] = [];
    req.on('data', (p: Buffer) => parts.push(p));
    req.on('end', () => {
      const closedEarly = new Promise<void>((resolve) => res.on('close', () => (res.writableFinished ? undefined : resolve())));
      const raw = Buffer.concat(parts).toString('utf8');
      const s: SeenRequest = { method: req.method ?? '', path: req.url ?? '', authorization: req.headers.authorization, body: raw ? JSON.parse(raw) : {}, closedEarly };
      seen.push(s);
      const failed = (err: unknown) => {
        if (res.headersSent) res.destroy();
        else res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `fake server bug: ${String(err)}` } }));
      };
      try {
        Promise.resolve(handle(s, res)).catch(failed);
      } catch (err) {
        failed(err);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * For a describe block: a function that starts a fake model server, each closed after the test
 * that started it (call it at the top of the block, where jest hooks may be declared).
 */
export function fakeModelServers(): (handle: Parameters<typeof startFakeModelServer>[0]) => Promise<FakeModelServer> {
  const open: FakeModelServer[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  return async (handle) => {
    const server = await startFakeModelServer(handle);
    open.push(server);
    return server;
  };
}
