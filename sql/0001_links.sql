-- Links: one external account belongs to exactly one user, and a user has at most one account
-- per provider. The unique indexes are the judge; the application maps a 23505 on these index
-- names (and only these) to its 409 codes, so the names are part of the contract.
CREATE TABLE linked_external_accounts (
  id                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  provider            text        NOT NULL,
  external_account_id text        NOT NULL,
  user_id             text        NOT NULL,
  display_name        text,
  linked_at           timestamptz NOT NULL DEFAULT now(),
  -- A code path that forgets to normalize is refused, never allowed to create a look-alike link.
  CONSTRAINT linked_external_accounts_provider_normalized
    CHECK (provider = lower(btrim(provider)) AND provider <> ''),
  CONSTRAINT linked_external_accounts_external_id_normalized
    CHECK (external_account_id = btrim(external_account_id) AND external_account_id <> ''),
  CONSTRAINT linked_external_accounts_user_id_length
    CHECK (char_length(user_id) BETWEEN 1 AND 128),
  CONSTRAINT linked_external_accounts_display_name_length
    CHECK (char_length(display_name) <= 200)
);

CREATE UNIQUE INDEX linked_external_accounts_external_account_key
  ON linked_external_accounts (lower(provider), external_account_id);

CREATE UNIQUE INDEX linked_external_accounts_user_provider_key
  ON linked_external_accounts (user_id, lower(provider));
