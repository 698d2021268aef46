/** Memory of processes, for the benchmarks that run Chromium: resident sizes from Linux's /proc, sampled. */
import { readdirSync, readFileSync } from 'node:fs';

/** Samples `read()` every `sampleMs` while `during` runs; returns the highest value less the one before it. */
export async function peakAbove<T>(read: () => number, during: () => Promise<T>, sampleMs = 200): Promise<{ value: T; peak: number }> {
  const base = read();
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, read())), sampleMs);
  try {
    const value = await during();
    peak = Math.max(peak, read());
    return { value, peak: peak - base };
  } finally {
    clearInterval(timer);
  }
}

/** Each process's children, from Linux's /proc. */
function childrenByParent(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      // The process ended while listed.
    }
  }
  return children;
}

/** Resident memory of process `pid` and all its descendants, in bytes (Linux /proc). */
export function treeRss(pid: number): number {
  const children = childrenByParent();
  let total = 0;
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop()!;
    try {
      const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1];
      total += Number(kb ?? 0) * 1024;
    } catch {
      // Gone.
    }
    stack.push(...(children.get(p) ?? []));
  }
  return total;
}

/** The browser process of a session: the process whose command line names its profile folder. */
export function browserPid(profileDir: string): number {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      if (cmd.includes(profileDir) && !cmd.includes('--type=')) return Number(name);
    } catch {
      // Gone.
    }
  }
  throw new Error('the browser process was not found');
}


/**
 * Resident memory of a browser's processes by kind: `browser`, `renderer`, `gpu-process`, and
 * `utility:<service>` (the storage service holds IndexedDB; the network service; …), in bytes.
 */
export function rssByKind(pid: number): Record<string, number> {
  const children = childrenByParent();
  const kinds: Record<string, number> = {};
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop()!;
    try {
      // Chromium rewrites its children's titles into one string with spaces, not NUL-separated arguments.
      const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8').split(/[\0 ]/);
      const type = cmd.find((a) => a.startsWith('--type='))?.slice(7);
      const service = cmd.find((a) => a.startsWith('--utility-sub-type='))?.slice(19).replace(/^.*\./, '');
      const kind = type === undefined ? (p === pid ? 'browser' : 'other') : type === 'utility' && service ? `utility:${service}` : type;
      const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1];
      kinds[kind] = (kinds[kind] ?? 0) + Number(kb ?? 0) * 1024;
    } catch {
      // Gone.
    }
    stack.push(...(children.get(p) ?? []));
  }
  return kinds;
}

/** Samples {@link rssByKind} every `sampleMs` while `during` runs; returns each kind's highest value less its value before. */
export async function peaksByKind<T>(pid: number, during: () => Promise<T>, sampleMs = 200): Promise<{ value: T; peaks: Record<string, number> }> {
  const base = rssByKind(pid);
  const peaks: Record<string, number> = {};
  const sample = () => {
    for (const [kind, bytes] of Object.entries(rssByKind(pid))) peaks[kind] = Math.max(peaks[kind] ?? 0, bytes - (base[kind] ?? 0));
  };
  const timer = setInterval(sample, sampleMs);
  try {
    const value = await during();
    sample();
    return { value, peaks };
  } finally {
    clearInterval(timer);
  }
}
