// What the unit tests of tracing share: settings that trace to an address nothing listens on, a
// caller's trace context, and a database holding one link.
import type { Sql } from "../../core/ports/sql.ts";
import { TEST_AUTH_SECRET } from "../../dev/support/tokens.ts";

// Nothing listens there; no span these cases record is ever sent (nothing is flushed).
export const TRACED = { AUTH_SECRET: TEST_AUTH_SECRET, OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" };
export const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
export const PARENT_SPAN_ID = "b7ad6b7169203331";

/** A database that holds one link, github/1, and takes no write. */
export const oneLink: Sql = {
  query: async () =>
    [
      {
        tenant_id: "acme",
        provider: "github",
        external_account_id: "1",
        user_id: "alice",
        linked_at: new Date(0),
        display_name: null,
      },
    ] as never,
  transaction: async () => [],
};
