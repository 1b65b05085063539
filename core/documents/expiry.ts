// The documents capability's background job: clearing Idempotency-Keys past their expiry from
// their documents (the documents stay), in bounded batches, about once a minute per deployment.
import { type BackgroundJob, inBatches } from "../background/job.ts";
import { expireKeys } from "./idempotency.ts";
import { DOCUMENT_KEYS_EXPIRY } from "./repository.ts";

export const documentKeyExpiryJob: BackgroundJob = {
  name: "documents/expire-idempotency-keys",
  cadence: "every-minute",
  run: (context) => inBatches(context, (sql, limit) => expireKeys(sql, DOCUMENT_KEYS_EXPIRY, limit)),
};
