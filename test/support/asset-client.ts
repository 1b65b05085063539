// The 412 recovery flow as a small client: fetch the latest version, let the caller merge its
// change into THAT version, send it with that version's ETag; on 412 start over from the fetch.
// It never resends an old body with a fresh ETag: that would be the lost update again, only
// slower. Web-standard fetch only, so it runs in browsers, workers and Node alike.
import type { AssetRepresentation } from "../../core/assets/model.ts";

export type FetchLike = (request: Request) => Promise<Response>;

/** Fields of a merge patch. */
type AssetChanges = Partial<Pick<AssetRepresentation, "name" | "material">>;

/** Gets the latest representation; answers the change to make to it, or null when none is needed (fields it already holds are dropped). */
type MergeFn = (latest: AssetRepresentation) => AssetChanges | null | Promise<AssetChanges | null>;

interface UpdateAssetOptions {
  /** Bearer token of the caller. */
  token: string;
  /** Fetch-merge-write rounds before giving up (default 3). */
  maxAttempts?: number;
}

interface UpdatedAsset {
  asset: AssetRepresentation;
  etag: string;
  /** Rounds it took; 1 when nobody wrote in between. */
  attempts: number;
}

/** A failure the caller must decide about: not found, approved (409), or still conflicting. */
export class AssetUpdateError extends Error {
  override name = "AssetUpdateError";
  constructor(
    message: string,
    readonly status: number,
    readonly problem: unknown,
  ) {
    super(message);
  }
}

export async function updateAssetOverHttp(
  fetchFn: FetchLike,
  baseUrl: string,
  id: string,
  merge: MergeFn,
  { token, maxAttempts = 3 }: UpdateAssetOptions,
): Promise<UpdatedAsset> {
  const url = new URL(`/v1/assets/${encodeURIComponent(id)}`, baseUrl).toString();
  const authorization = `Bearer ${token}`;

  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const latest = await fetchFn(new Request(url, { headers: { authorization } }));
    if (latest.status !== 200) throw await failure(latest, "fetching the asset");
    const etag = latest.headers.get("etag")!;
    const asset = (await latest.json()) as AssetRepresentation;

    const changes = changesTo(asset, await merge(asset));
    if (changes === null) return { asset, etag, attempts: attempt };

    const written = await fetchFn(
      new Request(url, {
        method: "PATCH",
        headers: { authorization, "content-type": "application/merge-patch+json", "if-match": etag },
        body: JSON.stringify(changes),
      }),
    );
    if (written.status === 200) {
      return {
        asset: (await written.json()) as AssetRepresentation,
        etag: written.headers.get("etag")!,
        attempts: attempt,
      };
    }
    if (written.status !== 412) throw await failure(written, "updating the asset");
    await written.body?.cancel(); // someone wrote in between: merge again into what they wrote
  }
  throw new AssetUpdateError(`The asset kept changing; gave up after ${maxAttempts} attempts.`, 412, null);
}

/**
 * The fields that differ from the latest version, or null when none do: every write is a new
 * version (a new ETag, which fails other clients' If-Match), and an empty patch is a 422.
 */
function changesTo(latest: AssetRepresentation, changes: AssetChanges | null): AssetChanges | null {
  const differing = Object.entries(changes ?? {}).filter(
    ([field, value]) => latest[field as keyof AssetChanges] !== value,
  );
  return differing.length === 0 ? null : Object.fromEntries(differing);
}

async function failure(response: Response, doing: string): Promise<AssetUpdateError> {
  const problem: unknown = await response.json().catch(() => null);
  const detail = (problem as { detail?: string } | null)?.detail ?? response.statusText;
  return new AssetUpdateError(`${doing} answered ${response.status}: ${detail}`, response.status, problem);
}
