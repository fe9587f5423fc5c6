import { open, readFile, type FileHandle } from 'node:fs/promises';
import { checkChain } from './chain.js';
import { GENESIS, macOf, type LedgerEntry, type SealedRecord } from './record.js';

/** The gateway's writer: appends sealed records, strictly one after another. */
export class Ledger {
  private chain: Promise<void> = Promise.resolve();
  private failure: Error | null = null;

  private constructor(
    private readonly handle: FileHandle,
    private readonly key: string,
    private prev: string,
    private seq: number,
  ) {}

  /** Opens a ledger for appending; an existing file must verify, and its chain is continued. */
  static async open(path: string, key: string): Promise<Ledger> {
    if (key.length === 0) throw new Error('the ledger key is empty');
    let prev = GENESIS;
    let seq = 0;
    const existing = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
    if (existing !== null && existing.length > 0) {
      const verdict = checkChain(existing, key);
      if (!verdict.ok) throw new Error(`the existing ledger ${path} does not verify: ${verdict.problem}`);
      const last = verdict.verified.at(-1)!;
      prev = last.mac;
      seq = last.seq;
    }
    return new Ledger(await open(path, 'a', 0o600), key, prev, seq);
  }

  /** Appends one record; appends run strictly one after another. */
  append(entry: LedgerEntry): Promise<void> {
    const next = this.chain.then(async () => {
      if (this.failure) throw this.failure;
      const unsealed = { ...entry, seq: this.seq + 1, time: new Date().toISOString(), prev: this.prev };
      const sealed: SealedRecord = { ...unsealed, mac: macOf(this.key, unsealed) };
      try {
        await this.handle.appendFile(`${JSON.stringify(sealed)}\n`);
      } catch (error) {
        this.failure = error as Error;
        throw error;
      }
      this.seq = sealed.seq;
      this.prev = sealed.mac;
    });
    this.chain = next.catch(() => undefined);
    return next;
  }

  async close(): Promise<void> {
    await this.chain;
    await this.handle.close();
  }
}
