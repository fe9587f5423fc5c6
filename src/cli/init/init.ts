import { existsSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { compilePerimeter, DEFAULT_CONFIG_FILE, parseConfig } from '../../policy/index.js';
import { parseCommandArgs, renderHelp, type Flags } from '../args.js';
import { coverage } from '../check.js';
import { listTrackedFiles, tryGitToplevel } from '../git.js';
import { EXIT_ERRORS, EXIT_OK, UsageError, type CliIo } from '../io.js';
import { findActionSource, parseActionArg } from './action-source.js';
import { renderProposal } from './init-yaml.js';
import {
  existingPerimeters,
  gatedRole,
  parseKind,
  proposedRole,
  workflowNextSteps,
  workflowText,
} from './init-workflow.js';
import { commandOf } from './invocation.js';
import { proposePerimeters, type Proposal } from './layout.js';
import { TEMPLATES, WORKFLOW_KINDS, type ActionRef, type WorkflowKind } from './workflow-templates.js';

export const INIT_USAGE =
  'perimeter init [--config FILE] [--stdout] [--json] [--workflow KIND [--action OWNER/REPO@REF]]';

export const INIT_FLAGS = {
  config: {
    type: 'string',
    value: 'FILE',
    help: 'where to write the proposal, inside the checkout (default perimeters.yml in the current directory); an existing file is never overwritten',
  },
  stdout: { type: 'boolean', default: false, help: 'print the proposal instead of writing it' },
  json: { type: 'boolean', default: false, help: 'print the proposal and its coverage as JSON' },
  workflow: {
    type: 'string',
    value: 'KIND',
    help: `also write a ready workflow under .github/workflows/ naming the perimeter init proposes (or the existing config's): ${WORKFLOW_KINDS.join(', ')}`,
  },
  action: {
    type: 'string',
    value: 'OWNER/REPO@REF',
    help: "the action the workflow uses; default the fork this CLI was run from, pinned to its checkout's commit (required when init cannot tell)",
  },
} satisfies Flags;

export const INIT_HELP = renderHelp({
  usage: INIT_USAGE,
  about:
    "Reads the tracked files of this git checkout and proposes a commented perimeters.yml with one perimeter per role it finds (docs, tests, source). The proposal passes `perimeter check` before it is written. With --workflow it also writes the workflow README shows for that setup, using the perimeter it proposed; when perimeters.yml exists, only the workflow is written, for that file's perimeter.",
  flags: INIT_FLAGS,
  exits:
    '0 written or printed; 1 a file exists, not a git checkout, nothing to propose, or no action to pin; 2 bad usage.',
});

/** A file init writes: never over an existing one. */
interface Planned {
  path: string;
  shown: string;
  text: string;
  /** what the refusal of an existing file adds */
  hint?: string;
}

/** Writes every file or none: a failure removes what this call already wrote. */
function writeAll(files: Planned[], io: CliIo): boolean {
  const written: string[] = [];
  for (const file of files) {
    let step = 'folder';
    try {
      mkdirSync(dirname(file.path), { recursive: true });
      step = 'file';
      writeFileSync(file.path, file.text, { flag: 'wx' });
      written.push(file.path);
    } catch (error) {
      for (const path of written) unlinkSync(path);
      const code = (error as NodeJS.ErrnoException).code;
      io.stderr(
        step === 'file' && code === 'EEXIST'
          ? `perimeter init: ${file.shown} already exists; init never overwrites it${file.hint ?? ''}\n`
          : `perimeter init: cannot write ${file.shown}${step === 'folder' ? ' (its folder)' : ''}: ${code ?? String(error)}\n`,
      );
      return false;
    }
  }
  return true;
}

/** The action the workflow uses: `--action`, else the fork the CLI came from; null (reported) when unknown. */
function actionFor(value: string | undefined, io: CliIo): ActionRef | null {
  if (value !== undefined) return parseActionArg(value);
  const source = findActionSource(io.script);
  if (source.kind === 'found') return source.action;
  io.stderr(
    `perimeter init: cannot tell which action the workflow should use: ${source.why}.\n` +
      'Name it with --action OWNER/REPO@REF: your fork of Perimeter and a commit SHA of it (the pinned form), or a release tag.\n',
  );
  return null;
}

/**
 * `perimeter init`: proposes a commented perimeters.yml from the checkout's tracked files and writes it,
 * never over an existing file. The proposal is parsed and compiled before it is written, so what lands
 * always passes `perimeter check`. With `--workflow` it writes the workflow too (or alone, beside an existing
 * perimeters.yml), both or neither.
 */
export async function run(args: string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs(args, INIT_FLAGS, false);
  const kind: WorkflowKind | null = values.workflow === undefined ? null : parseKind(values.workflow);
  if (kind === null && values.action !== undefined)
    throw new UsageError('--action names the action of --workflow');
  if (kind !== null && values.stdout)
    throw new UsageError('--stdout prints the perimeters.yml proposal; --workflow writes files');
  if (kind !== null && values.config !== undefined && values.config !== DEFAULT_CONFIG_FILE)
    throw new UsageError(
      `--workflow writes a workflow for ${DEFAULT_CONFIG_FILE} at the checkout's root; with another --config, add the action's config input by hand`,
    );
  const root = tryGitToplevel(io.cwd);
  if (root === null) {
    io.stderr('perimeter init: not in a git checkout: init proposes perimeters from the tracked files\n');
    return EXIT_ERRORS;
  }
  const target = resolve(io.cwd, values.config ?? DEFAULT_CONFIG_FILE);
  const configInRepo = relative(root, target).split(sep).join('/');
  if (configInRepo === '' || configInRepo.startsWith('../'))
    throw new UsageError(`--config: expected a file inside the checkout ${root}, got ${values.config}`);
  const cli = commandOf(io.script, io.cwd);

  let workflow: { kind: WorkflowKind; action: ActionRef; file: string } | null = null;
  if (kind !== null) {
    const action = actionFor(values.action, io);
    if (action === null) return EXIT_ERRORS;
    const file = TEMPLATES[kind].file;
    if (existsSync(join(root, file))) {
      io.stderr(`perimeter init: ${file} already exists; init never overwrites it\n`);
      return EXIT_ERRORS;
    }
    workflow = { kind, action, file };
    if (existsSync(target))
      return writeWorkflowOnly(workflow, root, target, configInRepo, cli, values.json, io);
  }

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
  const named = workflow === null ? null : proposedRole(proposal.roles);
  if (workflow?.kind === 'gate')
    proposal.roles = proposal.roles.map((role) => (role === named ? gatedRole(role) : role));
  const text = renderProposal(proposal);
  // The proposal must be a valid config: a failure here is a bug in init, reported as one.
  const config = parseConfig(text, configInRepo);
  const perimeters = config.perimeters.map((spec) => compilePerimeter(spec, configInRepo));
  const covered = coverage(perimeters, files);

  const written = !values.stdout;
  const planned: Planned[] = [];
  if (written)
    planned.push({ path: target, shown: configInRepo, text, hint: ' (--stdout prints the proposal)' });
  if (workflow !== null)
    planned.push({
      path: join(root, workflow.file),
      shown: workflow.file,
      text: workflowText(workflow.kind, workflow.action, [named!.name], configInRepo),
    });
  if (written && !writeAll(planned, io)) return EXIT_ERRORS;
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
        ...(workflow !== null && { workflow: workflowJson(workflow, [named!.name]) }),
      })}\n`,
    );
    return EXIT_OK;
  }
  if (values.stdout) {
    io.stdout(text);
    return EXIT_OK;
  }
  io.stdout(proposalSummary(proposal, configInRepo));
  if (workflow !== null) io.stdout(workflowSummary(workflow, [named!.name]));
  io.stdout(
    `Next: read ${workflow === null ? 'it' : 'them'}, then \`${cli} check\` and \`${cli} replay HEAD --max-count 50\` ` +
      '(what your last 50 commits would have been judged).\n',
  );
  if (workflow !== null) io.stdout(workflowNextSteps(workflow.kind, workflow.file, configInRepo));
  return EXIT_OK;
}

function proposalSummary(proposal: Proposal, configInRepo: string): string {
  const summary = proposal.roles.map((role) => `${role.name} (writes ${role.files})`).join(', ');
  return (
    `Wrote ${configInRepo}: ${proposal.roles.length} perimeter${proposal.roles.length === 1 ? '' : 's'}: ${summary}.\n` +
    `${proposal.protectedFiles.length} protected file(s) stay with humans; ` +
    `${proposal.unassigned.length} tracked file(s) no perimeter writes.\n`
  );
}

const actionText = (action: ActionRef) => `${action.repository}@${action.ref}`;

function workflowJson(
  workflow: { kind: WorkflowKind; action: ActionRef; file: string },
  perimeters: string[],
) {
  return { file: workflow.file, kind: workflow.kind, action: actionText(workflow.action), perimeters };
}

function workflowSummary(
  workflow: { kind: WorkflowKind; action: ActionRef; file: string },
  perimeters: string[],
) {
  return (
    `Wrote ${workflow.file}: ${TEMPLATES[workflow.kind].about}, ` +
    `${workflow.kind === 'gate' ? 'gating' : 'in'} perimeter ${perimeters.join(', ')}, using ${actionText(workflow.action)}.\n`
  );
}

/** `--workflow` beside an existing perimeters.yml: the workflow alone, naming that file's perimeter. */
function writeWorkflowOnly(
  workflow: { kind: WorkflowKind; action: ActionRef; file: string },
  root: string,
  target: string,
  configInRepo: string,
  cli: string,
  json: boolean,
  io: CliIo,
): number {
  const config = parseConfig(readFileSync(target, 'utf8'), configInRepo);
  const chosen = existingPerimeters(workflow.kind, config);
  if ('why' in chosen) {
    io.stderr(`perimeter init: ${chosen.why}\n`);
    return EXIT_ERRORS;
  }
  const text = workflowText(workflow.kind, workflow.action, chosen.names, configInRepo);
  if (!writeAll([{ path: join(root, workflow.file), shown: workflow.file, text }], io)) return EXIT_ERRORS;
  if (json) {
    io.stdout(
      `${JSON.stringify({ file: configInRepo, written: false, workflow: workflowJson(workflow, chosen.names) })}\n`,
    );
    return EXIT_OK;
  }
  io.stdout(
    `${configInRepo} exists and stays as it is.\n${workflowSummary(workflow, chosen.names)}` +
      `Next: read it, then \`${cli} check\`.\n${workflowNextSteps(workflow.kind, workflow.file, configInRepo)}`,
  );
  return EXIT_OK;
}
