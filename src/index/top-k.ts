/**
 * The `k` best items offered so far by `compare` (negative when `a` ranks before `b`), in a heap whose
 * root is the worst of them: O(log k) per item that gets in, one comparison per item that does not. A
 * search can match most of a 100k-chunk library and only a few hits are wanted.
 */
export class TopK<T> {
  private readonly heap: T[] = [];

  constructor(
    private readonly k: number,
    private readonly compare: (a: T, b: T) => number,
  ) {}

  /** Whether `k` items are kept (then an item must beat {@link worst} to get in). */
  get full(): boolean {
    return this.heap.length >= this.k;
  }

  /** The worst item kept. */
  get worst(): T | undefined {
    return this.heap[0];
  }

  offer(item: T): void {
    const heap = this.heap;
    if (this.k <= 0) return;
    if (heap.length < this.k) {
      heap.push(item);
      for (let i = heap.length - 1; i > 0; ) {
        const parent = (i - 1) >> 1;
        if (this.compare(heap[i]!, heap[parent]!) <= 0) break;
        [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
        i = parent;
      }
    } else if (this.compare(item, heap[0]!) < 0) {
      heap[0] = item;
      this.siftDown(0);
    }
  }

  /** The items kept, best first. */
  sorted(): T[] {
    return [...this.heap].sort(this.compare);
  }

  private siftDown(i: number): void {
    const heap = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let w = i;
      if (l < heap.length && this.compare(heap[l]!, heap[w]!) > 0) w = l;
      if (r < heap.length && this.compare(heap[r]!, heap[w]!) > 0) w = r;
      if (w === i) return;
      [heap[i], heap[w]] = [heap[w]!, heap[i]!];
      i = w;
    }
  }
}

/** The `k` best items by `compare`, best first, in O(n log k). */
export function topK<T>(items: Iterable<T>, k: number, compare: (a: T, b: T) => number): T[] {
  const top = new TopK(k, compare);
  for (const item of items) top.offer(item);
  return top.sorted();
}
