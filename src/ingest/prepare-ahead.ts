/**
 * Yields `prepare(item)` for each item in order, starting the next item's preparation before handing
 * back the current result, as the library's ingest queue does: the caller's synchronous work (adding to
 * the index) overlaps the next file's asynchronous hashing.
 */
export async function* prepareAhead<T, R>(items: Iterable<T>, prepare: (item: T) => Promise<R>): AsyncGenerator<R> {
  const it = items[Symbol.iterator]();
  let current = it.next();
  let ahead = current.done ? undefined : prepare(current.value);
  while (ahead) {
    const result = await ahead;
    current = it.next();
    ahead = current.done ? undefined : prepare(current.value);
    // A rejection of the next preparation is reported when its turn comes, not as unhandled.
    ahead?.catch(() => undefined);
    yield result;
  }
}
