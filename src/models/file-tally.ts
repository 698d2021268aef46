/** Bytes of each file of a load so far, and their sum; a finished file counts whole. */
export class FileTally {
  private readonly files = new Map<string, { loaded: number; total: number }>();

  progress(file: string, loaded: number, total: number): void {
    this.files.set(file, { loaded, total });
  }

  /** The file is complete: its bytes so far are its size, if no size was announced. */
  done(file: string): void {
    const f = this.files.get(file);
    if (f) this.files.set(file, { loaded: f.total || f.loaded, total: f.total || f.loaded });
  }

  sum(): { loaded: number; total: number } {
    let loaded = 0;
    let total = 0;
    for (const f of this.files.values()) {
      loaded += f.loaded;
      total += f.total;
    }
    return { loaded, total };
  }

  list(): Array<{ file: string; loaded: number; total: number }> {
    return [...this.files].map(([file, f]) => ({ file, ...f }));
  }
}
