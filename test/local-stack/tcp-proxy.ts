// A TCP relay in front of PostgreSQL that a test can cut (every connection dropped, new ones
// refused) and restore: an outage of the database as the endpoint sees it.
import { createConnection, createServer, type Server, type Socket } from "node:net";

export interface TcpProxy {
  port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number, targetHost = "127.0.0.1"): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  };
  const server = createServer((client) => {
    const upstream = createConnection(targetPort, targetHost);
    track(client);
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve());
    });
  const stop = (s: Server) =>
    new Promise<void>((resolve) => {
      s.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });
  await listen(0);
  const port = (server.address() as { port: number }).port;
  let up = true;
  return {
    port,
    async cut() {
      if (!up) return;
      up = false;
      await stop(server);
    },
    async restore() {
      if (up) return;
      up = true;
      await listen(port);
    },
    close: () => (up ? stop(server) : Promise.resolve()),
  };
}
