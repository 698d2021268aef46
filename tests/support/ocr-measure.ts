/** Character error rate: edit distance over the truth's length, spacing normalised (OCR tests and tools). */
export function characterErrorRate(read: string, truth: string): number {
  const [a, b] = [read, truth].map((s) => s.replace(/\s+/g, ' ').trim()) as [string, string];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]! / b.length;
}
