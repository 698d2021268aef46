/** "12.3 MB", "740 KB", "1.2 GB". */
export function formatBytes(n: number): string {
  if (n < 1024 * 1024) return `${Math.round(n / 1024)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(1)} GB`;
}

/** "about 40 s left", "about 3 min left". */
export function formatEta(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60 ? `about ${s} s left` : `about ${Math.round(s / 60)} min left`;
}
