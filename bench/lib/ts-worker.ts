// Worker threads running TypeScript, and a request/answer channel to them. tsx's loader hooks
// in the main thread do not reach worker threads on Node 20, so each worker registers tsx itself
// before importing its entry.
import { Worker } from "node:worker_threads";

export function startTsWorker(entry: URL, workerData?: unknown): Worker {
  const tsx = import.meta.resolve("tsx/esm/api");
  const boot = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(boot, { eval: true, workerData });
}

interface Answer {
  id: number;
  value?: unknown;
  error?: string;
}

/** Sends `{ id, ...request }`, resolves with the worker's `{ id, value }` (or rejects on `{ id, error }`). */
export function channel<Request extends object>(worker: Worker): <T>(request: Request) => Promise<T> {
  let next = 0;
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  const failAll = (error: Error) => {
    for (const waiter of pending.values()) waiter.reject(error);
    pending.clear();
  };
  worker.on("message", (answer: Answer) => {
    const waiter = pending.get(answer.id);
    pending.delete(answer.id);
    if (answer.error !== undefined) waiter?.reject(new Error(answer.error));
    else waiter?.resolve(answer.value);
  });
  worker.on("error", failAll);
  worker.on("exit", (code) => failAll(new Error(`worker exited with code ${code}`)));
  return <T>(request: Request) =>
    new Promise<T>((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      worker.postMessage({ id, ...request });
    });
}

/** The worker side: answers each `{ id, ...request }` with `handle(request)`. */
export function serve<Request>(
  port: import("node:worker_threads").MessagePort,
  handle: (request: Request) => Promise<unknown>,
): void {
  port.on("message", (message: Request & { id: number }) => {
    handle(message).then(
      (value) => port.postMessage({ id: message.id, value }),
      (error: unknown) =>
        port.postMessage({ id: message.id, error: error instanceof Error ? error.message : String(error) }),
    );
  });
}
