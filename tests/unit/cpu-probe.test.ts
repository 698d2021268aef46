import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { coresFrom, llamaThreads, measureCores, spin, type ProbeReply, type ProbeWorker } from '../../src/models/host/cpu-probe.ts';

/**
 * Probe workers on a simulated machine of `free` cores with its own clock: a worker's time for `n`
 * iterations is n / rate, stretched by how many workers share the cores (as the operating system's
 * time-slicing does); the clock moves on by the batch's time when it replies.
 */
function simulatedMachine(free: number, rate = 1e6) {
  // Work posted in the same turn runs together.
  let pending: { worker: ProbeWorker; n: number }[] = [];
  let clock = 0;
  const spawned: ProbeWorker[] = [];
  const flush = () => {
    const together = pending;
    pending = [];
    const stretch = Math.max(1, together.length / free);
    clock += Math.max(...together.map(({ n }) => (n / rate) * stretch));
    for (const { worker, n } of together) worker.onmessage?.({ data: { ms: (n / rate) * stretch, hash: 0 } satisfies ProbeReply });
  };
  const spawn = (): ProbeWorker => {
    const worker: ProbeWorker = {
      onmessage: null,
      onerror: null,
      postMessage(n: number) {
        if (!pending.length) setTimeout(flush, 0);
        pending.push({ worker, n });
      },
      terminate() {
        spawned.splice(spawned.indexOf(worker), 1);
      },
    };
    spawned.push(worker);
    return worker;
  };
  return { spawn, now: () => clock, alive: () => spawned.length };
}

describe('the CPU probe (free cores, measured)', () => {
  it('reads the cores from the times: k workers at once taking k/c times as long as one alone means c cores', () => {
    expect(coresFrom(20, 4, 40)).toBe(2);
    expect(coresFrom(20, 4, 20)).toBe(4);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 16 }), fc.integer({ min: 1, max: 16 }), fc.double({ min: 1, max: 500, noNaN: true }), (k, c, alone) => {
        expect(coresFrom(alone, k, alone * Math.max(1, k / c))).toBeCloseTo(Math.min(k, c), 6);
      }),
    );
    // Never fewer than one, never more than the workers run.
    expect(coresFrom(20, 2, 1)).toBe(2);
    expect(coresFrom(20, 2, 400)).toBe(1);
    expect(coresFrom(0, 2, 10)).toBe(1);
  });

  it('finds 2 free cores on a machine that reports 16 but gives 2, and stops every worker it started', async () => {
    const machine = simulatedMachine(2);
    expect(await measureCores(machine.spawn, 16, { now: machine.now })).toBeCloseTo(2, 6);
    expect(machine.alive()).toBe(0);
    const roomy = simulatedMachine(8);
    expect(await measureCores(roomy.spawn, 8, { now: roomy.now })).toBeCloseTo(8, 6);
    // At most maxWorkers are started; one reported core needs no probe.
    const big = simulatedMachine(32);
    expect(await measureCores(big.spawn, 32, { maxWorkers: 4, now: big.now })).toBeCloseTo(4, 6);
    expect(await measureCores(() => { throw new Error('never spawned'); }, 1)).toBe(1);
  });

  it('answers one core when a probe worker fails or never replies (too few threads only slows llama.cpp; too many stalls it)', async () => {
    const failing = (): ProbeWorker => {
      const w: ProbeWorker = { onmessage: null, onerror: null, postMessage: () => setTimeout(() => w.onerror?.({ message: 'blocked by CSP' }), 0), terminate: () => {} };
      return w;
    };
    expect(await measureCores(failing, 8)).toBe(1);
    let terminated = 0;
    const silent = (): ProbeWorker => ({ onmessage: null, onerror: null, postMessage: () => {}, terminate: () => void terminated++ });
    expect(await measureCores(silent, 4, { timeoutMs: 50 })).toBe(1);
    expect(terminated).toBe(4);
  });

  it("gives llama.cpp half the measured cores, at most 4, and one thread where it cannot thread", () => {
    expect([1, 2, 3, 3.6, 4, 6, 7.6, 8, 16].map((c) => llamaThreads(true, c))).toEqual([1, 1, 1, 2, 2, 3, 4, 4, 4]);
    expect(llamaThreads(false, 16)).toBe(1);
  });

  it('spins a fixed, deterministic amount of work', () => {
    expect(spin(1000)).toBe(spin(1000));
    expect(spin(1000)).not.toBe(spin(1001));
  });
});
