// What drives a profiled server: a session with its inspector, and the lookups sent to it.
import { Agent, request } from "node:http";

/**
 * One Chrome DevTools Protocol session with the server's inspector: its only target, or the one
 * whose id is `targetId` (workerd lists each worker of the process).
 */
export async function inspect(port: number, targetId?: string) {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
    id: string;
    webSocketDebuggerUrl: string;
  }[];
  const target = targetId === undefined ? targets[0] : targets.find(({ id }) => id === targetId);
  if (!target) throw new Error(`no inspector target ${targetId ?? ""} on port ${port}`);
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  let next = 0;
  const pending = new Map<number, (result: unknown) => void>();
  socket.onmessage = (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) pending.get(message.id)?.(message.result);
  };
  const call = <T>(method: string, params: object = {}) =>
    new Promise<T>((resolve) => {
      const id = ++next;
      pending.set(id, resolve as (result: unknown) => void);
      socket.send(JSON.stringify({ id, method, params }));
    });
  return { call, close: () => socket.close() };
}

/** `count` GETs of `path`, `concurrency` at a time over kept-alive connections; each must answer 200. */
export async function load(
  url: string,
  path: string,
  headers: Record<string, string>,
  count: number,
  concurrency: number,
) {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const { hostname, port } = new URL(url);
  let sent = 0;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      request({ hostname, port, path, headers, agent }, (answer) => {
        answer.resume();
        answer.on("end", () =>
          answer.statusCode === 200 ? resolve() : reject(new Error(`${path}: HTTP ${answer.statusCode}`)),
        );
      })
        .on("error", reject)
        .end();
    });
  const lane = async () => {
    while (sent++ < count) await one();
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  agent.destroy();
}
