import * as net from 'node:net';
import { freePort } from './infra';

export interface TcpProxy {
  port: number;
  /** Drops every connection and refuses new ones (the upstream "went away"). */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

/** A TCP proxy to host:port that a test can cut: a database restart as the apps see it. */
export async function startTcpProxy(host: string, port: number): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let cut = false;
  const server = net.createServer((client) => {
    if (cut) return client.destroy();
    const upstream = net.connect(port, host);
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  const listenPort = await freePort();
  await new Promise<void>((r) => server.listen(listenPort, '127.0.0.1', r));
  return {
    port: listenPort,
    cut: () => {
      cut = true;
      for (const s of sockets) s.destroy();
    },
    restore: () => {
      cut = false;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
