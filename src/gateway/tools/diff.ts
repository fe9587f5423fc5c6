import { z } from 'zod';
import { changedPaths, type PathChange } from '../reads/changed-paths.js';
import { unifiedHunks } from '../reads/patches.js';
import { shownBlobs, type ShownBlob } from '../reads/shown-files.js';
import { defineTool } from './definition.js';
import { requirePath } from './paths.js';
import { visibleCommit } from './visible-commit.js';

/** Patch text one answer carries at most; files past it are listed without their patch. */
const MAX_ANSWER_CHARS = 1_048_576;

export const diff = defineTool({
  name: 'diff',
  description:
    'The changes a commit of the bound branch made to the files this endpoint may read, as unified diff hunks: against its first parent, or against another commit of the branch given as base. Texts are compared as get_file shows them, secret values already hidden. omitted_count tells how many other changed files are not shown.',
  readOnly: true,
  destructive: false,
  inputSchema: {
    sha: z.string().describe('full commit SHA (40 hex characters): the newer side'),
    base: z
      .string()
      .optional()
      .describe("full commit SHA of the older side; default the commit's first parent"),
    path: z.string().optional().describe('only this file or the files below this directory'),
    context: z
      .number()
      .int()
      .min(0)
      .max(20)
      .optional()
      .describe('unchanged lines around each change, default 3'),
  },
  outputSchema: {
    sha: z.string(),
    base: z
      .string()
      .nullable()
      .describe(
        'the base asked for; null for the first parent, never named (it may be a commit this endpoint hides)',
      ),
    files: z.array(
      z.object({
        path: z.string(),
        status: z.enum(['added', 'modified', 'deleted']),
        patch: z.string().optional(),
        note: z.string().optional().describe('why patch is absent: binary, too large, or the answer is full'),
        submodule: z
          .literal(true)
          .optional()
          .describe(
            'a side is a submodule: its patch names the commits, as git diff does ("Subproject commit")',
          ),
      }),
    ),
    omitted_count: z.number(),
  },
  pathArguments: { path: 'one' },
  async handler(args, context) {
    const { perimeter, view, filter, notes } = context;
    notes.sha = args.sha;
    const within =
      args.path === undefined || args.path === ''
        ? undefined
        : requirePath(args.path, ' (leave path out for every readable file)');
    const newer = await visibleCommit(args.sha, context);
    let base: string | null = null;
    let readable = newer.readable;
    let omitted = newer.omitted;
    if (args.base !== undefined) {
      const older = await visibleCommit(args.base, context);
      base = older.commit.sha;
      const changes = await changedPaths(view.upstream, older.commit.tree, newer.commit.tree);
      readable = changes.filter((c) => perimeter.canRead(c.path).allowed);
      // a commit against itself changes nothing; hidden changes are counted, never shown
      omitted = changes.length - readable.length;
    }
    // omitted_count covers the whole diff whatever `path` says: below a hidden folder it would tell it apart
    const shownFiles = readable.filter(
      (c) => within === undefined || c.path === within || c.path.startsWith(`${within}/`),
    );
    // a submodule's side is a commit of another repository: named in the patch, never read as a blob
    const shas = shownFiles.flatMap((c) =>
      [blobSide(c, 'after'), blobSide(c, 'before')].filter((s): s is string => s !== undefined),
    );
    const texts = await shownBlobs(
      view,
      filter,
      shas.map((sha) => ({ sha })),
    );
    const contextLines = args.context ?? 3;
    let budget = MAX_ANSWER_CHARS;
    const files = shownFiles.map((change) => {
      const entry = filePatch(change, texts, contextLines);
      if (entry.patch !== undefined && entry.patch.length > budget)
        return {
          path: change.path,
          status: change.status,
          note: 'patch not shown: this answer reached its size limit; ask with path',
        };
      budget -= entry.patch?.length ?? 0;
      return entry;
    });
    notes.paths.push(...files.map((f) => f.path));
    return { structured: { sha: newer.commit.sha, base, files, omitted_count: omitted } };
  },
});

type Side = 'before' | 'after';

const isSubmodule = (change: PathChange, side: Side): boolean =>
  change.submodule === side || change.submodule === 'both';

/** The blob SHA of a side of a change, undefined where that side is absent or a submodule. */
function blobSide(change: PathChange, side: Side): string | undefined {
  return isSubmodule(change, side) ? undefined : side === 'after' ? change.sha : change.previousSha;
}

function filePatch(
  change: PathChange,
  texts: Map<string, ShownBlob>,
  context: number,
): { path: string; status: PathChange['status']; patch?: string; note?: string; submodule?: true } {
  const side = (which: Side): ShownBlob | null => {
    if (which === 'after' ? change.status === 'deleted' : change.status === 'added') return null;
    const sha = which === 'after' ? change.sha : change.previousSha;
    // as git diff shows a submodule: the commit it points at, as one line
    if (isSubmodule(change, which)) return { text: `Subproject commit ${sha}\n` };
    return sha === undefined ? null : (texts.get(sha) ?? null);
  };
  const [before, after] = [side('before'), side('after')];
  const submodule = change.submodule === undefined ? {} : { submodule: true as const };
  const note = [before, after].find((s): s is { note: string } => s !== null && 'note' in s);
  if (note)
    return { path: change.path, status: change.status, note: `patch not shown: ${note.note}`, ...submodule };
  const text = (s: ShownBlob | null): string | null => (s !== null && 'text' in s ? s.text : null);
  return {
    path: change.path,
    status: change.status,
    patch: unifiedHunks(text(before), text(after), context),
    ...submodule,
  };
}
