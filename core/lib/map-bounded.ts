// Many calls to one store, a few at a time: Workers queue an invocation's connections beyond six
// anyway, and a store is not made faster by a hundred calls racing each other.

/**
 * `task` of every item, at most `limit` at once; the results in the items' order. The first
 * failure rejects, and no item is started after it.
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        results[index] = await task(items[index]!);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
