// The assets capability's background job: removing Idempotency-Keys past their expiry.
import { keyExpiryJob } from "../idempotency/expiry.ts";
import { ASSET_KEYS_EXPIRY } from "./create-once.ts";

export const assetKeyExpiryJob = keyExpiryJob("assets/expire-idempotency-keys", ASSET_KEYS_EXPIRY);
