/**
 * A Cache API stand-in for Node tests: a Map of URL → stored body and headers, with the browser Cache's
 * `match`/`put`/`delete`/`keys` for the calls `models/model-cache.ts` makes. `failPutsAfter(n)` makes
 * puts after the n-th throw a QuotaExceededError, as a full disk does.
 */
import type { CacheLike } from '../../src/models/model-cache.ts';

export class FakeCache implements CacheLike {
  readonly entries = new Map<string, { body: ArrayBuffer; headers: [string, string][] }>();
  private putsLeft = Infinity;

  failPutsAfter(n: number): void {
    this.putsLeft = n;
  }

  async match(url: string): Promise<Response | undefined> {
    const entry = this.entries.get(new URL(url, 'http://localhost/').href);
    return entry ? new Response(entry.body.slice(0), { headers: entry.headers }) : undefined;
  }

  async put(url: string, response: Response): Promise<void> {
    const body = await response.arrayBuffer();
    if (this.putsLeft-- <= 0) throw Object.assign(new Error('quota exceeded'), { name: 'QuotaExceededError' });
    this.entries.set(new URL(url).href, { body, headers: [...response.headers] });
  }

  async delete(url: string): Promise<boolean> {
    return this.entries.delete(new URL(url).href);
  }

  async keys(): Promise<ReadonlyArray<{ url: string }>> {
    return [...this.entries.keys()].map((url) => ({ url }));
  }
}
