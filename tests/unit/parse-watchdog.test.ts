import { afterEach, describe, expect, it, vi } from 'vitest';
import { DocQaError } from '../../src/core/errors.ts';
import { watch } from '../../src/library/parse-watchdog.ts';

const expired = () => new DocQaError('too-slow', 'took too long to read');

describe('parse watchdog', () => {
  afterEach(() => vi.useRealTimers());

  it('stops a run that goes idleMs without a heartbeat, and ignores its late result', async () => {
    vi.useFakeTimers();
    const stop = vi.fn();
    let finish!: (v: string) => void;
    const run = watch(() => new Promise<string>((resolve) => (finish = resolve)), { idleMs: 1000, stop, expired });
    const outcome = run.result.then(
      (v) => `resolved ${v}`,
      (e: DocQaError) => `rejected ${e.code}`,
    );
    await vi.advanceTimersByTimeAsync(999);
    expect(stop).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(stop).toHaveBeenCalledTimes(1);
    finish('late');
    expect(await outcome).toBe('rejected too-slow');
  });

  it('lets a slow run that keeps reporting progress finish, however long it takes', async () => {
    vi.useFakeTimers();
    const stop = vi.fn();
    const run = watch(
      async (beat) => {
        for (let i = 0; i < 10; i++) {
          await new Promise((r) => setTimeout(r, 900));
          beat();
        }
        return 'done';
      },
      { idleMs: 1000, stop, expired },
    );
    await vi.advanceTimersByTimeAsync(9000);
    await expect(run.result).resolves.toBe('done');
    expect(stop).not.toHaveBeenCalled();
  });

  it('can be aborted from outside (Delete while the file is read)', async () => {
    const stop = vi.fn();
    const run = watch(() => new Promise<never>(() => {}), { idleMs: 60_000, stop, expired });
    run.abort(new DocQaError('cancelled', 'removed while it was being read'));
    await expect(run.result).rejects.toMatchObject({ code: 'cancelled' });
    expect(stop).toHaveBeenCalledTimes(1);
    run.abort(new DocQaError('cancelled', 'twice'));
    expect(stop).toHaveBeenCalledTimes(1);
  });

  it('passes a failure of the run through, without stopping anything', async () => {
    const stop = vi.fn();
    const run = watch(() => Promise.reject(new DocQaError('corrupt-file', 'damaged')), { idleMs: 60_000, stop, expired });
    await expect(run.result).rejects.toMatchObject({ code: 'corrupt-file' });
    expect(stop).not.toHaveBeenCalled();
  });
});
