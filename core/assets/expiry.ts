// The assets capability's background job: removing Idempotency-Keys past their expiry, in
// bounded batches, about once a minute per deployment.
import { type BackgroundJob, inBatches } from "../background/job.ts";
import { expireKeys } from "../documents/idempotency.ts";
import { ASSET_KEYS_EXPIRY } from "./create-once.ts";

export const assetKeyExpiryJob: BackgroundJob = {
  name: "assets/expire-idempotency-keys",
  cadence: "every-minute",
  run: (context) => inBatches(context, (sql, limit) => expireKeys(sql, ASSET_KEYS_EXPIRY, limit)),
};
