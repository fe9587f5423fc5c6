/**
 * Caches for objects addressed by SHA (they never change). Concurrent loads of one key share one
 * promise (single flight); a failed load is forgotten so the next caller tries again.
 */
export class ShaCache<T> {
  private readonly done = new Map<string, T>();
  private readonly pending = new Map<string, Promise<T>>();

  get(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.done.get(key);
    if (hit !== undefined) return Promise.resolve(hit);
    const inFlight = this.pending.get(key);
    if (inFlight) return inFlight;
    const promise = load().then(
      (value) => {
        this.pending.delete(key);
        this.set(key, value);
        return value;
      },
      (error: unknown) => {
        this.pending.delete(key);
        throw error;
      },
    );
    this.pending.set(key, promise);
    return promise;
  }

  peek(key: string): T | undefined {
    return this.done.get(key);
  }

  set(key: string, value: T): void {
    this.done.set(key, value);
  }
}

/** A ShaCache for byte arrays that evicts the least recently used entries beyond `maxBytes`. */
export class BlobCache extends ShaCache<Uint8Array> {
  private readonly lru = new Map<string, Uint8Array>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {
    super();
  }

  override peek(key: string): Uint8Array | undefined {
    const value = this.lru.get(key);
    if (value !== undefined) {
      this.lru.delete(key);
      this.lru.set(key, value);
    }
    return value;
  }

  override get(key: string, load: () => Promise<Uint8Array>): Promise<Uint8Array> {
    const hit = this.peek(key);
    return hit !== undefined ? Promise.resolve(hit) : super.get(key, load);
  }

  override set(key: string, value: Uint8Array): void {
    if (value.byteLength > this.maxBytes || this.lru.has(key)) return;
    this.lru.set(key, value);
    this.bytes += value.byteLength;
    for (const [oldKey, oldValue] of this.lru) {
      if (this.bytes <= this.maxBytes) break;
      this.lru.delete(oldKey);
      this.bytes -= oldValue.byteLength;
    }
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.lru.size, bytes: this.bytes };
  }
}
