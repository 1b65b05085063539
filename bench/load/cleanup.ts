// What a run on deployments made, removed where the API allows it: every link it made is
// unlinked by its owner, every asset deleted at its current version. Documents cannot be
// deleted (docs/API.md): they stay in the run's tenants.
import type { Session, Target } from "./rounds.ts";
import { stateOf } from "./rounds.ts";

export interface Cleanup {
  unlinked: number;
  assetsDeleted: number;
  /** What could not be removed, and why. */
  failures: string[];
}

export async function removeWhatWasMade(
  session: Pick<Session, "state" | "tokens" | "tenant">,
  targets: readonly Target[],
  send: typeof fetch,
): Promise<Cleanup> {
  const cleanup: Cleanup = { unlinked: 0, assetsDeleted: 0, failures: [] };
  const remove = async (url: URL, headers: Record<string, string>) => {
    try {
      const response = await send(url, { method: "DELETE", headers });
      await response.arrayBuffer();
      // 404: never made (its request failed) or already gone.
      if (response.status === 204) return true;
      if (response.status !== 404) cleanup.failures.push(`DELETE ${url.pathname}: HTTP ${response.status}`);
    } catch (error) {
      cleanup.failures.push(`DELETE ${url.pathname}: ${error instanceof Error ? error.message : String(error)}`);
    }
    return false;
  };
  for (const target of targets) {
    const { made, etags } = stateOf(session, target);
    const seen = new Set<string>();
    for (const { path, owner } of made.links) {
      if (seen.has(`${owner.tid}|${path}`)) continue;
      seen.add(`${owner.tid}|${path}`);
      const authorization = `Bearer ${await session.tokens.token(owner)}`;
      if (await remove(new URL(path, target.url), { authorization })) cleanup.unlinked++;
    }
    const assetOwner = { sub: "bench", tid: `${session.tenant}-${target.name}-assets` };
    const authorization = `Bearer ${await session.tokens.token(assetOwner)}`;
    for (const [path, etag] of etags) {
      if (await remove(new URL(path, target.url), { authorization, "if-match": etag })) cleanup.assetsDeleted++;
    }
  }
  return cleanup;
}
