// What an asset is, what a client may send, and what it gets back.
import * as v from "valibot";
import { jsonObject, maxCodePoints, notBlank, publishedAs } from "../http/validation.ts";

export const ASSET_ID_PATTERN = /^[A-Za-z0-9._~-]{1,128}$/;
const MAX_TEXT_LENGTH = 200;

export type AssetStatus = "draft" | "approved";

/** A stored asset; `etag` is the opaque version token (the HTTP ETag without quotes). */
export interface Asset {
  id: string;
  name: string;
  material: string;
  status: AssetStatus;
  etag: string;
  updatedAt: string;
}

/** The JSON representation of the contract: the version travels in the ETag header only. */
export interface AssetRepresentation {
  id: string;
  name: string;
  material: string;
  status: AssetStatus;
  updatedAt: string;
}

export const representation = ({ id, name, material, status, updatedAt }: Asset): AssetRepresentation => ({
  id,
  name,
  material,
  status,
  updatedAt,
});

// `.` and `..` are dot-segments: clients resolve them away (RFC 3986 §5.2.4), so an asset with such an id
// could never be reached. `import` is the path of the CSV import, not an asset.
const UNREACHABLE_IDS = [".", "..", "import"];

export const AssetIdSchema = v.pipe(
  v.string(),
  v.regex(ASSET_ID_PATTERN, "must be 1-128 characters of A-Z a-z 0-9 . _ ~ -"),
  publishedAs(
    { not: { enum: UNREACHABLE_IDS } },
    v.check((id: string) => !UNREACHABLE_IDS.includes(id), `must not be ${UNREACHABLE_IDS.join(", ")}`),
  ),
);

// Surrounding whitespace is never meaningful in a name or material; blank is not a value.
const TextSchema = v.pipe(
  v.string(),
  v.trim(),
  notBlank(v.check((text: string) => text !== "", "must not be blank")),
  maxCodePoints(MAX_TEXT_LENGTH),
  // NUL cannot be stored in Postgres text (a 500 otherwise) and a lone surrogate would silently
  // become U+FFFD; other characters, line breaks included, are kept as sent.
  publishedAs(
    { pattern: "^[^\\u0000]*$" },
    v.check((text: string) => !/[\u0000\p{Cs}]/u.test(text), "must not contain NUL or lone surrogates"),
  ),
);

/** The client-writable fields, each as a body or a CSV row gives it. */
export const ASSET_FIELDS = { name: TextSchema, material: TextSchema };

// The representation's members the server sets: a client sending back what it read names them, and
// is told so rather than that they are unknown.
const SERVERS_OWN = new Map([
  ["id", "is the server's: send name and material only"],
  ["status", "is the server's: approve with POST /v1/assets/{id}/approve"],
  ["updatedAt", "is the server's: send name and material only"],
]);

/** A body of some of the client-writable fields; any other member is refused (valibot names the first). */
const bodyOf = <Entries extends v.ObjectEntries>(entries: Entries) =>
  jsonObject(
    v.strictObject(entries, (issue) =>
      issue.expected === "never" ? (SERVERS_OWN.get(String(issue.input)) ?? issue.message) : issue.message,
    ),
  );

/** POST and PUT: the full set of client-writable fields. Unknown fields are refused. */
export const AssetFieldsSchema = bodyOf(ASSET_FIELDS);

export type AssetFields = v.InferOutput<typeof AssetFieldsSchema>;

// In a merge patch `null` removes a member (RFC 7396), which no field of an asset can be without:
// said so, rather than that a string was expected.
const PatchedText = v.optional(
  v.pipe(
    v.unknown(),
    v.check((value) => value !== null, "cannot be removed (null): every asset has one"),
    TextSchema,
  ),
);

/** PATCH (JSON merge patch): a subset of the fields, at least one; `null` cannot remove a required field. */
export const AssetPatchSchema = v.pipe(
  bodyOf({ name: PatchedText, material: PatchedText }),
  // Its only fields are these two: "at least one field" says it.
  publishedAs(
    { minProperties: 1 },
    v.check(
      (patch: { name?: string; material?: string }) => patch.name !== undefined || patch.material !== undefined,
      "a patch must set name and/or material",
    ),
  ),
);

export type AssetPatch = v.InferOutput<typeof AssetPatchSchema>;
