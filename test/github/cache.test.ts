import { describe, expect, it } from 'vitest';
import { BlobCache, ShaCache } from '../../src/github/octokit/cache.js';

describe('ShaCache', () => {
  it('loads a key once for concurrent callers and forgets failures', async () => {
    const cache = new ShaCache<string>();
    let loads = 0;
    const load = async () => `v${++loads}`;
    expect(await Promise.all([cache.get('k', load), cache.get('k', load)])).toEqual(['v1', 'v1']);
    expect(loads).toBe(1);
    await expect(cache.get('bad', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await cache.get('bad', load)).toBe('v2');
  });
});

describe('BlobCache', () => {
  it('evicts the least recently used blobs beyond its byte bound', async () => {
    const cache = new BlobCache(10);
    const bytes = (n: number) => async () => new Uint8Array(n);
    await cache.get('a', bytes(4));
    await cache.get('b', bytes(4));
    await cache.get('a', bytes(4)); // a is now the most recent
    await cache.get('c', bytes(4)); // evicts b
    expect(cache.size).toEqual({ entries: 2, bytes: 8 });
    expect(cache.peek('b')).toBeUndefined();
    expect(cache.peek('a')).toBeDefined();
    await cache.get('huge', bytes(11));
    expect(cache.peek('huge')).toBeUndefined();
  });
});
