/**
 * Files and bytes done in the current run of the queue, and an ETA from the byte rate so far; while the
 * file being read says how long it has left (OCR: from the pace of its pages), that plus the rate's
 * estimate for the files after it, so the queue's line agrees with the file's row.
 */
export class QueueProgress {
  private done = 0;
  private total = 0;
  private bytesDone = 0;
  private bytesTotal = 0;
  private partialBytes = 0;
  /** The file being read: its size, and the seconds it says it has left (when it says). */
  private reading: { size: number; secondsLeft?: number } | undefined;
  private startedAt: number | undefined;

  constructor(private readonly now: () => number = () => Date.now()) {}

  add(files: number, bytes: number): void {
    this.total += files;
    this.bytesTotal += bytes;
  }

  /**
   * Makes the totals cover `files` files (`bytes` bytes) still waiting in the persisted queue, counted by
   * the writer: files another tab added, or left from an earlier visit, count from the start, not one by one.
   */
  expect(files: number, bytes: number): void {
    this.startedAt ??= this.now();
    this.total = Math.max(this.total, this.done + files);
    this.bytesTotal = Math.max(this.bytesTotal, this.bytesDone + bytes);
  }

  /** Counts a file found in the persisted queue that this run did not see being added (after a reload). */
  ensure(bytes: number): void {
    this.startedAt ??= this.now();
    if (this.done >= this.total) this.add(1, bytes);
  }

  /** The file being read (`size` bytes) is `bytes` in, and has `secondsLeft` to go when it knows. */
  partial(bytes: number, size?: number, secondsLeft?: number): void {
    this.partialBytes = bytes;
    this.reading = size === undefined ? undefined : { size, ...(secondsLeft !== undefined && { secondsLeft }) };
  }

  fileDone(bytes: number): void {
    this.done++;
    this.bytesDone += bytes;
    this.partialBytes = 0;
    this.reading = undefined;
  }

  reset(): void {
    this.done = this.total = this.bytesDone = this.bytesTotal = this.partialBytes = 0;
    this.reading = this.startedAt = undefined;
  }

  figures(): { done: number; total: number; bytesDone: number; bytesTotal: number; etaMs?: number } {
    const bytesDone = this.bytesDone + this.partialBytes;
    const elapsed = this.startedAt === undefined ? 0 : this.now() - this.startedAt;
    // The time `bytes` and `files` take at the pace so far: per-file overhead matters for many small
    // files, so the slower of the byte rate and the file rate.
    const atRate = (bytes: number, files: number): number | undefined => {
      const estimates = [bytesDone > 0 ? (elapsed / bytesDone) * bytes : undefined, this.done > 0 ? (elapsed / this.done) * files : undefined];
      const finite = estimates.filter((x): x is number => x !== undefined && Number.isFinite(x));
      return finite.length ? Math.max(...finite) : undefined;
    };
    const own = this.reading?.secondsLeft;
    let etaMs: number | undefined;
    if (own !== undefined) {
      // The file being read knows its own time; the files after it go at the rate so far.
      const after = atRate(Math.max(0, this.bytesTotal - this.bytesDone - this.reading!.size), Math.max(0, this.total - this.done - 1));
      etaMs = Math.round(own * 1000 + (after ?? 0));
    } else if (elapsed > 1000) {
      const left = atRate(this.bytesTotal - bytesDone, this.total - this.done);
      etaMs = left === undefined ? undefined : Math.round(left);
    }
    return { done: this.done, total: this.total, bytesDone, bytesTotal: this.bytesTotal, etaMs };
  }
}
