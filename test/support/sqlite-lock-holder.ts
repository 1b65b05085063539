// A Deno worker that holds an exclusive lock on a SQLite file from a thread of its own, for as long
// as it is told: `{ path, ms }` in, "held" out once it holds it, "released" once it let go. Its own
// thread, since Deno.openKv blocks the thread that calls it while SQLite waits for the lock.
import { DatabaseSync } from "node:sqlite";

interface WorkerScope {
  onmessage: ((event: { data: { path: string; ms: number } }) => void) | null;
  postMessage(message: "held" | "released"): void;
}
const scope = globalThis as unknown as WorkerScope;

scope.onmessage = ({ data: { path, ms } }) => {
  const holder = new DatabaseSync(path);
  holder.exec("BEGIN EXCLUSIVE");
  scope.postMessage("held");
  setTimeout(() => {
    holder.exec("COMMIT");
    holder.close();
    scope.postMessage("released");
  }, ms);
};
