-- Assets: tenant-scoped records updated by compare-and-set on an opaque, per-version etag.
CREATE TABLE assets (
  tenant_id  text        NOT NULL,
  id         text        NOT NULL,
  name       text        NOT NULL,
  material   text        NOT NULL,
  status     text        NOT NULL DEFAULT 'draft',
  -- Random per version, so it reveals nothing about how often the asset changed.
  etag       text        NOT NULL DEFAULT replace(gen_random_uuid()::text, '-', ''),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, id),
  CONSTRAINT assets_status_valid CHECK (status IN ('draft', 'approved'))
);

-- Every change gets a new etag and timestamp, whichever statement made it: no code path can
-- change an asset and leave a stale etag behind.
CREATE FUNCTION assets_new_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.etag := replace(gen_random_uuid()::text, '-', '');
  NEW.updated_at := now();
  RETURN NEW;
END;
$$;

CREATE TRIGGER assets_new_version
  BEFORE UPDATE ON assets
  FOR EACH ROW EXECUTE FUNCTION assets_new_version();
