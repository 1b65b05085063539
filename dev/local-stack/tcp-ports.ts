import { createServer } from "node:net";

/** The port is in use: found before any database is opened, so nothing is left half-started. */
class PortInUseError extends Error {
  constructor(
    readonly port: number,
    setting: string,
  ) {
    super(`Port ${port} on 127.0.0.1 is already in use (${setting}); stop what runs there or choose another port.`);
    this.name = "PortInUseError";
  }
}

/** Throws PortInUseError when 127.0.0.1:`port` cannot be bound (0 always can). */
export async function assertPortFree(port: number, setting: string): Promise<void> {
  if (port === 0) return;
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(error.code === "EADDRINUSE" ? new PortInUseError(port, setting) : error),
    );
    server.listen(port, "127.0.0.1", () => server.close(() => resolve()));
  });
}
