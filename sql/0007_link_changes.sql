-- The change feed of links: every write that changes what a lookup answers (link, unlink, a new
-- display name) adds a row here in the same statement, so a rolled-back write leaves none. Every
-- deployment drains it into its own KV cache (core/links/sync.ts).
--
-- Ids and transaction ids are taken before commit, so rows become visible out of order. A reader
-- only takes rows of transactions older than its snapshot's xmin (all of those have ended, so no
-- row below that horizon can appear later) and keeps its cursor as (txid, id) in that order:
-- no committed change is ever skipped.
CREATE TABLE link_changes (
  id                  bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  txid                xid8        NOT NULL DEFAULT pg_current_xact_id(),
  tenant_id           text        NOT NULL,
  provider            text        NOT NULL,
  external_account_id text        NOT NULL,
  changed_at          timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX link_changes_feed_key ON link_changes (txid, id);

-- Pruning: rows older than the longest cache lifetime name no entry that could still be served.
CREATE INDEX link_changes_changed_at_key ON link_changes (changed_at);
