/** What a CLI command may touch besides the file system and git: its output streams and directory. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  cwd: string;
  /** the file the user ran (`process.argv[1]`): what init names in its closing lines and pins workflows to */
  script?: string;
}

/** Every `perimeter <command>` module exports `run` with this signature. */
export type CommandRun = (args: string[], io: CliIo) => Promise<number>;

export const EXIT_OK = 0;
export const EXIT_ERRORS = 1;
export const EXIT_USAGE = 2;
/** `replay` and `audit`: the run worked and found differences (a changed verdict, a disagreement). */
export const EXIT_CHANGES = 3;

/** Bad command-line usage: the dispatcher prints the message and the usage, exit 2. */
export class UsageError extends Error {
  readonly code = 'usage';
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    cwd: process.cwd(),
    ...(process.argv[1] !== undefined && { script: process.argv[1] }),
  };
}
