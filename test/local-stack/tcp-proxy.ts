// A TCP relay in front of PostgreSQL that a test can cut (every connection dropped, new ones
// refused) and restore: an outage of the database as the endpoint sees it. Or partition it: the
// database's side of every connection is closed while the client's stays open and hears nothing
// ever again (half-open, as after a partition that outlived the database session); new
// connections are relayed as before.
import { createConnection, createServer, type Server, type Socket } from "node:net";

export interface TcpProxy {
  port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  /** Silences every open connection for good (its database side closed); new ones are relayed. */
  partition(): void;
  close(): Promise<void>;
}

interface Relayed {
  client: Socket;
  upstream: Socket;
  silenced: boolean;
}

export async function startTcpProxy(targetPort: number, targetHost = "127.0.0.1"): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const relayed = new Set<Relayed>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  };
  const server = createServer((client) => {
    const upstream = createConnection(targetPort, targetHost);
    const pair: Relayed = { client, upstream, silenced: false };
    relayed.add(pair);
    track(client);
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on("close", () => {
      relayed.delete(pair);
      upstream.destroy();
    });
    upstream.on("close", () => {
      if (!pair.silenced) client.destroy();
    });
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
    partition() {
      for (const pair of relayed) {
        pair.silenced = true;
        pair.client.unpipe(pair.upstream);
        pair.upstream.unpipe(pair.client);
        pair.client.on("data", () => {}); // read and dropped: nothing ever answers
        pair.upstream.destroy();
      }
    },
    close: () => (up ? stop(server) : Promise.resolve()),
  };
}
