import { describe, expect, it } from 'vitest';
import { QueueProgress } from '../../src/library/queue-progress.ts';

describe('the queue’s time left', () => {
  it('comes from the rate so far, and agrees with a file that knows its own time (OCR) plus the rate for the files after it', () => {
    let now = 0;
    const progress = new QueueProgress(() => now);
    progress.add(3, 3_000);
    progress.expect(3, 3_000);
    now = 2_000;
    progress.fileDone(1_000);
    // One file of 1,000 bytes in 2 s: two more to go at that pace.
    expect(progress.figures()).toMatchObject({ done: 1, total: 3, etaMs: 4_000 });
    // The second file is a scan: a fifth of its bytes in, it says 40 s are left (its pages' pace). The
    // queue says those 40 s and the rate's time for the third file, not the bytes' 3 s.
    now = 2_500;
    progress.partial(200, 1_000, 40);
    expect(progress.figures().etaMs).toBe(40_000 + 2_500);
    // The same scan as the last file: the queue's time is the file's.
    progress.fileDone(1_000);
    progress.partial(500, 1_000, 12);
    expect(progress.figures().etaMs).toBe(12_000);
    // A file that does not know its time leaves the rate to speak.
    progress.partial(500, 1_000);
    expect(progress.figures().etaMs).toBeLessThan(12_000);
    progress.fileDone(1_000);
    expect(progress.figures()).toMatchObject({ done: 3, total: 3 });
  });

  it('says nothing in the first second, then takes the slower of the byte rate and the file rate', () => {
    let now = 0;
    const progress = new QueueProgress(() => now);
    // One large file, then three of 10 bytes each.
    progress.add(4, 4_030);
    progress.expect(4, 4_030);
    now = 500;
    progress.partial(400, 4_000);
    expect(progress.figures().etaMs).toBeUndefined();
    now = 4_000;
    progress.fileDone(4_000);
    // By bytes the three small files take 30 ms; each file has taken 4 s so far, so 12 s.
    expect(progress.figures()).toMatchObject({ done: 1, total: 4, bytesDone: 4_000, etaMs: 12_000 });
  });
});
