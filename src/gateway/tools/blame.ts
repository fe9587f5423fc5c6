import { z } from 'zod';
import { blameLines, blobAt, type FileVersion } from '../reads/blame-lines.js';
import { linesOf, shownBlobs } from '../reads/shown-files.js';
import { clip } from '../reads/text-search.js';
import { ToolError } from '../tool-answer.js';
import { commitSummarySchema, summarize } from './commit-schema.js';
import { defineTool } from './definition.js';
import { readableFile } from './readable-file.js';

/** Commits of the file's history examined at most: lines older than them answer with no commit. */
export const MAX_BLAME_COMMITS = 100;
const MAX_LINES = 2_000;

export const blame = defineTool({
  name: 'blame',
  description: `Which commit last changed each line of a readable file at the head of the bound branch, like git blame --first-parent: each line with its 1-based number, text (as get_file shows it) and commit, and the commits' messages and authors. Examines the file's last ${MAX_BLAME_COMMITS} commits; older lines answer with commit null. Renames are not followed. At most ${MAX_LINES} lines per call: pick them with start_line and end_line.`,
  readOnly: true,
  destructive: false,
  inputSchema: {
    path: z.string().describe('repository-relative path of a file'),
    start_line: z.number().int().min(1).optional().describe('first line to answer, default 1'),
    end_line: z.number().int().min(1).optional().describe('last line to answer, default the end'),
  },
  outputSchema: {
    path: z.string(),
    lines: z.array(z.object({ line: z.number(), commit: z.string().nullable(), text: z.string() })),
    commits: z.array(commitSummarySchema),
    total_lines: z.number(),
    incomplete: z
      .boolean()
      .describe(`true when lines older than ${MAX_BLAME_COMMITS} commits answer with commit null`),
  },
  pathArguments: { path: 'one' },
  async handler(args, context) {
    const { perimeter, view, instructions, filter, notes } = context;
    const { path, entry } = await readableFile(args.path, context);
    if (instructions?.applies(perimeter, path))
      throw new ToolError(
        `${JSON.stringify(path)} is an agent instruction file served from the trusted ref ${instructions.ref}, not from this branch's history: blame has nothing to show`,
        'refused',
      );
    if (entry.type !== 'blob' || entry.mode === '120000')
      throw new ToolError(`${JSON.stringify(path)} is not a regular file; use get_file`, 'refused');
    const head = await view.upstream.getBranchHead(view.branch);
    // the path's own history: every commit in it changed this readable path, so list_commits shows it too
    const found = await view.upstream.listCommits({ sha: head, path, perPage: MAX_BLAME_COMMITS + 1 });
    const complete = found.length <= MAX_BLAME_COMMITS;
    const commits = found.slice(0, MAX_BLAME_COMMITS);
    const blobs = await Promise.all(commits.map((c) => blobAt(view.upstream, c.tree, path)));
    const wanted = [entry, ...blobs.filter((b) => b !== null)];
    // every version read together: one fetch over git, not one request per version
    const shown = await shownBlobs(view, filter, wanted);
    const headText = shown.get(entry.sha)!;
    if (!('text' in headText))
      throw new ToolError(`${JSON.stringify(path)}: ${headText.note}; blame shows text files`, 'refused');
    const versions: FileVersion[] = [{ commit: commits[0]?.sha ?? head, lines: linesOf(headText.text) }];
    commits.forEach((commit, i) => {
      if (i === 0) return;
      const blob = blobs[i];
      const text = blob ? shown.get(blob.sha) : undefined;
      versions.push({ commit: commit.sha, lines: text && 'text' in text ? linesOf(text.text) : null });
    });
    const owners = blameLines(versions, complete);
    const total = versions[0]!.lines!.length;
    const start = args.start_line ?? 1;
    const end = Math.min(args.end_line ?? total, total, start + MAX_LINES - 1);
    if (total > 0 && (start > total || end < start))
      throw new ToolError(
        `no lines ${start}-${args.end_line ?? total}: the file has ${total} lines`,
        'refused',
      );
    const lines = [];
    for (let n = start; n <= end; n++)
      lines.push({ line: n, commit: owners[n - 1] ?? null, text: clip(versions[0]!.lines![n - 1]!) });
    const used = new Set(lines.map((l) => l.commit));
    notes.paths.splice(0, notes.paths.length, path);
    return {
      structured: {
        path,
        lines,
        commits: commits.filter((c) => used.has(c.sha)).map(summarize),
        total_lines: total,
        incomplete: !complete && lines.some((l) => l.commit === null),
      },
    };
  },
});
