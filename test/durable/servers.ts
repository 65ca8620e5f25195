import { type ChildProcess, spawn } from 'node:child_process';
import { connect, createServer, type Server, type Socket } from 'node:net';

/** Resolves once something accepts connections on 127.0.0.1:`port` (polling on the event loop). */
export async function listening(port: number): Promise<void> {
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** A TCP proxy to 127.0.0.1:`target` that a test can cut: every connection dropped, new ones refused. */
export interface Proxy {
  port: number;
  cut(): void;
  close(): Promise<void>;
}

/** Starts a proxy on a free port. */
export async function startProxy(target: number): Promise<Proxy> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(target, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const cut = () => {
    server.close();
    for (const socket of sockets) socket.destroy();
  };
  return { port, cut, close: async () => cut() };
}

/** A Redis server of the test's own on `port`, keeping its data in `dir` (so a restart finds it). */
export async function redisServer(port: number, dir: string): Promise<ChildProcess> {
  const server = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'yes',
      '--appendfsync',
      'always',
    ],
    { stdio: 'ignore' },
  );
  await listening(port);
  return server;
}

/** Kills a server (SIGKILL), resolving once it is gone. */
export function kill(server: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (server.exitCode !== null || server.signalCode !== null) resolve();
    else {
      server.once('exit', () => resolve());
      server.kill('SIGKILL');
    }
  });
}

/** A port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
