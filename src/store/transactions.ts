/**
 * Waits for a transaction's requests, then for the transaction itself, and throws the transaction's own
 * error: when a transaction aborts (quota exceeded, say) its requests fail first with a generic
 * AbortError, and the real cause is only on the transaction.
 */
export async function settle(done: Promise<void>, writes: ReadonlyArray<Promise<unknown>>): Promise<void> {
  done.catch(() => undefined);
  await Promise.allSettled(writes);
  await done;
}

/**
 * Rolls back a write transaction after an error. A request that throws synchronously (a value that
 * cannot be cloned, say) does not abort the transaction by itself: without this, the writes issued
 * before it would commit, leaving half a document (or, when replacing, the old version deleted and
 * the new one missing). Pending requests and `done` reject with AbortError; those are expected here.
 */
export function abortQuietly(tx: { abort(): void; done: Promise<void> }, pending: ReadonlyArray<Promise<unknown>>): void {
  for (const p of [...pending, tx.done]) p.catch(() => undefined);
  try {
    tx.abort();
  } catch {
    // Already committed or aborted.
  }
}
