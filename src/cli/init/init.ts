import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { compilePerimeter, DEFAULT_CONFIG_FILE, parseConfig } from '../../policy/index.js';
import { parseCommandArgs, renderHelp, type Flags } from '../args.js';
import { coverage } from '../check.js';
import { listTrackedFiles, tryGitToplevel } from '../git.js';
import { renderProposal } from './init-yaml.js';
import { EXIT_ERRORS, EXIT_OK, UsageError, type CliIo } from '../io.js';
import { proposePerimeters } from './layout.js';

export const INIT_USAGE = 'perimeter init [--config FILE] [--stdout] [--json]';

export const INIT_FLAGS = {
  config: {
    type: 'string',
    value: 'FILE',
    help: 'where to write the proposal, inside the checkout (default perimeters.yml in the current directory); an existing file is never overwritten',
  },
  stdout: { type: 'boolean', default: false, help: 'print the proposal instead of writing it' },
  json: { type: 'boolean', default: false, help: 'print the proposal and its coverage as JSON' },
} satisfies Flags;

export const INIT_HELP = renderHelp({
  usage: INIT_USAGE,
  about:
    'Reads the tracked files of this git checkout and proposes a commented perimeters.yml with one perimeter per role it finds (docs, tests, source). The proposal passes `perimeter check` before it is written.',
  flags: INIT_FLAGS,
  exits: '0 written or printed; 1 the file exists, not a git checkout, or nothing to propose; 2 bad usage.',
});

/**
 * `perimeter init`: proposes a commented perimeters.yml from the checkout's tracked files and writes it,
 * never over an existing file. The proposal is parsed and compiled before it is written, so what lands
 * always passes `perimeter check`.
 */
export async function run(args: string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs(args, INIT_FLAGS, false);
  const root = tryGitToplevel(io.cwd);
  if (root === null) {
    io.stderr('perimeter init: not in a git checkout: init proposes perimeters from the tracked files\n');
    return EXIT_ERRORS;
  }
  const target = resolve(io.cwd, values.config ?? DEFAULT_CONFIG_FILE);
  const configInRepo = relative(root, target).split(sep).join('/');
  if (configInRepo === '' || configInRepo.startsWith('../'))
    throw new UsageError(`--config: expected a file inside the checkout ${root}, got ${values.config}`);
  const files = listTrackedFiles(root);
  if (files.length === 0) {
    io.stderr('perimeter init: the checkout tracks no files yet: commit some, then run init\n');
    return EXIT_ERRORS;
  }
  const proposal = proposePerimeters(files, configInRepo);
  if (proposal.roles.length === 0) {
    io.stderr(
      'perimeter init: found no docs, tests or source folders to propose perimeters for; ' +
        'write perimeters.yml by hand (its reference: docs/configuration.md in the Perimeter repository)\n',
    );
    return EXIT_ERRORS;
  }
  const text = renderProposal(proposal);
  // The proposal must be a valid config: a failure here is a bug in init, reported as one.
  const config = parseConfig(text, configInRepo);
  const perimeters = config.perimeters.map((spec) => compilePerimeter(spec, configInRepo));
  const covered = coverage(perimeters, files);

  const written = !values.stdout;
  if (written) {
    try {
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, text, { flag: 'wx' });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      io.stderr(
        code === 'EEXIST'
          ? `perimeter init: ${configInRepo} already exists; init never overwrites it (--stdout prints the proposal)\n`
          : `perimeter init: cannot write ${configInRepo}: ${code ?? String(error)}\n`,
      );
      return EXIT_ERRORS;
    }
  }
  if (values.json) {
    io.stdout(
      `${JSON.stringify({
        file: configInRepo,
        written,
        perimeters: proposal.roles,
        protect: proposal.protect,
        protectedFiles: proposal.protectedFiles,
        unassigned: proposal.unassigned,
        unreadable: covered.unreadable.length,
      })}\n`,
    );
    return EXIT_OK;
  }
  if (values.stdout) {
    io.stdout(text);
    return EXIT_OK;
  }
  const summary = proposal.roles.map((role) => `${role.name} (writes ${role.files})`).join(', ');
  io.stdout(
    `Wrote ${configInRepo}: ${proposal.roles.length} perimeter${proposal.roles.length === 1 ? '' : 's'}: ${summary}.\n` +
      `${proposal.protectedFiles.length} protected file(s) stay with humans; ` +
      `${proposal.unassigned.length} tracked file(s) no perimeter writes.\n` +
      `Next: read it, then \`perimeter check\` and \`perimeter replay HEAD~50..HEAD\`.\n`,
  );
  return EXIT_OK;
}
