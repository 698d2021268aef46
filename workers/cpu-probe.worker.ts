import { spin, type ProbeReply } from '../src/models/host/cpu-probe.ts';

// Runs the CPU probe's fixed work on each number it is sent and replies with the time it took.
self.onmessage = (event: MessageEvent<number>) => {
  const t0 = performance.now();
  const hash = spin(event.data);
  self.postMessage({ ms: performance.now() - t0, hash } satisfies ProbeReply);
};
