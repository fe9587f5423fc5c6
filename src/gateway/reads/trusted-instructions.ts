import { instructionFileRule } from '../../policy/index.js';
import { type RepoReads, UpstreamError } from '../../github/index.js';
import type { Perimeter } from '../../policy/index.js';
import type { FileAnswer } from './file-answer.js';

/**
 * Agent instruction files (AGENTS.md, CLAUDE.md, .cursor/rules/...) as the trusted config ref holds
 * them: whoever could push to the bound branch before the job must not steer the agent through them.
 * A perimeter with `instructions: branch` reads the branch's copies like any other file.
 */
export class TrustedInstructions {
  constructor(
    private readonly upstream: RepoReads,
    /** the ref perimeters.yml was read from */
    readonly ref: string,
  ) {}

  /** Whether `path` is answered from the trusted ref for this perimeter. */
  applies(perimeter: Perimeter, path: string): boolean {
    return perimeter.spec.instructions !== 'branch' && instructionFileRule(path) !== null;
  }

  /** The file at the trusted ref; null when it is not there (or not a text file). */
  async read(path: string): Promise<FileAnswer | null> {
    try {
      const { text, sha } = await this.upstream.getFileAtRef(path, this.ref);
      return {
        path,
        type: 'file',
        sha,
        size: Buffer.byteLength(text),
        encoding: 'utf-8',
        content: text,
        note: `agent instruction file: served from the trusted ref ${JSON.stringify(this.ref)}, not the bound branch`,
      };
    } catch (error) {
      if (error instanceof UpstreamError && (error.code === 'not_found' || error.code === 'invalid'))
        return null;
      throw error;
    }
  }
}
