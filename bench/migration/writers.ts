// The writers `npm run bench:migration` keeps running while the migrations apply: links,
// unlinks and document creates, with the statements of the release before tenants for as long as
// the schema takes them (sql/0013 refuses them), then this release's.
import { DEFAULT_MAX_LINKS_PER_USER } from "../../core/links/link-settings.ts";
import { linkAccount, unlinkAccount } from "../../core/links/repository.ts";
import type { Sql } from "../../core/ports/sql.ts";
import {
  LINK_BEFORE_TENANTS,
  REFUSED_BEFORE_TENANTS,
  UNLINK_BEFORE_TENANTS,
} from "../../dev/support/links-before-tenants.ts";

// The previous release's document insert (before sql/0011): it must keep working on the new schema.
const PREVIOUS_CREATE_DOCUMENT = `INSERT INTO documents (tenant_id, contract_id, title, idempotency_key, request_fingerprint)
  VALUES ($1, $2, NULL, $3, 'f')`;

type LinkWrite = (sql: Sql, link: { provider: string; externalAccountId: string; userId: string }) => Promise<unknown>;

/** The link writes a deployment runs: those of the release before tenants, or this release's. */
interface LinkRelease {
  link: LinkWrite;
  unlink: LinkWrite;
}

export const BEFORE_TENANTS: LinkRelease = {
  link: (sql, l) => sql.query(LINK_BEFORE_TENANTS, [l.provider, l.externalAccountId, l.userId, null, false]),
  unlink: (sql, l) => sql.query(UNLINK_BEFORE_TENANTS, [l.provider, l.externalAccountId, l.userId]),
};

/** This release's, in the tenant of `tenantId` ('legacy' continues what the release before made). */
export const withTenants = (tenantId: string): LinkRelease => ({
  link: (sql, l) =>
    linkAccount(sql, {
      ...l,
      tenantId,
      displayName: null,
      replaceDisplayName: false,
      maxLinksPerUser: DEFAULT_MAX_LINKS_PER_USER,
    }),
  unlink: (sql, l) => unlinkAccount(sql, tenantId, l, l.userId),
});

const codeOf = (error: unknown) => (error as { code?: unknown } | null)?.code;

/**
 * Writes until `stop()`: every write's latency, any that failed, and when the schema refused the
 * release before tenants (sql/0013): the write is then made again with this release's statement,
 * as a deployment would once it runs the new release, and its latency covers both attempts.
 */
export function startWriter(sql: Sql, writer: number, release: LinkRelease, stop: () => boolean) {
  const latencies: { at: number; ms: number }[] = [];
  const failures = { count: 0, first: [] as string[] };
  let refusedAt: number | undefined;
  const done = (async () => {
    for (let n = 0; !stop(); n++) {
      const started = performance.now();
      // Links 50 accounts (one per provider), then unlinks them, and again.
      const target = { provider: `p${n % 50}`, externalAccountId: `w${writer}`, userId: `w${writer}` };
      const write = (r: LinkRelease) =>
        n % 3 === 2
          ? sql.query(PREVIOUS_CREATE_DOCUMENT, ["bench", `C-${writer}-${n}`, `k-${writer}-${n}`])
          : (n % 100 < 50 ? r.link : r.unlink)(sql, target);
      try {
        await write(release).catch(async (error: unknown) => {
          if (release !== BEFORE_TENANTS || !REFUSED_BEFORE_TENANTS.has(String(codeOf(error)))) throw error;
          // When the refusal came: a write sent during 0012 can queue behind 0013's swap and meet it.
          refusedAt = performance.now();
          release = withTenants("legacy");
          await write(release);
        });
      } catch (error) {
        failures.count++;
        if (failures.first.length < 10) failures.first.push(error instanceof Error ? error.message : String(error));
        // A write that fails at once must not keep the event loop from the other writers' answers.
        await new Promise((resolve) => setImmediate(resolve));
      }
      latencies.push({ at: started, ms: performance.now() - started });
    }
  })();
  return { latencies, failures, done, refusedAt: () => refusedAt };
}
