// The documents capability's background job: clearing Idempotency-Keys past their expiry from
// their documents (the documents stay).
import { keyExpiryJob } from "../idempotency/expiry.ts";
import { DOCUMENT_KEYS_EXPIRY } from "./repository.ts";

export const documentKeyExpiryJob = keyExpiryJob("documents/expire-idempotency-keys", DOCUMENT_KEYS_EXPIRY);
