import { z } from 'zod';
import { linesOf, shownBlobs } from '../reads/shown-files.js';
import { compileMatcher, matchLines, SearchPatternError, type LineHit } from '../reads/text-search.js';
import { readableTree } from '../reads/trusted-instructions.js';
import { ToolError } from '../tool-answer.js';
import { defineTool } from './definition.js';
import { requirePath } from './paths.js';

const DEFAULT_MATCHES = 100;
const MAX_MATCHES = 1_000;
/** Shown text one search reads at most; past it the search stops and says where. */
export const MAX_SEARCH_CHARS = 256 * 1_048_576;

const hitSchema = z.object({
  path: z.string(),
  line: z.number().describe('1-based, in the file as get_file shows it'),
  text: z.string(),
  before: z.array(z.string()).optional(),
  after: z.array(z.string()).optional(),
});

export const search = defineTool({
  name: 'search',
  description: `Search the text of the files this endpoint may read, at the head of the bound branch, like grep: a literal text by default, or a regular expression (RE2 syntax: no backreferences or lookaround). Lines are matched as get_file shows them, secret values already hidden. Answers each matching line with its file and 1-based line number, optionally with context lines; at most ${MAX_MATCHES} matches.`,
  readOnly: true,
  destructive: false,
  inputSchema: {
    pattern: z.string().describe('the text (or, with regex, the regular expression) to find in each line'),
    regex: z.boolean().optional().describe('treat pattern as an RE2 regular expression; default false'),
    case_sensitive: z.boolean().optional().describe('default true'),
    path: z.string().optional().describe('only this file or the files below this directory'),
    context: z.number().int().min(0).max(10).optional().describe('lines shown before and after each match'),
    max_matches: z.number().int().min(1).max(MAX_MATCHES).optional().describe(`default ${DEFAULT_MATCHES}`),
  },
  outputSchema: {
    matches: z.array(hitSchema),
    files_searched: z.number(),
    files_not_searched: z
      .array(z.object({ path: z.string(), note: z.string() }))
      .describe('readable files whose text is not shown by get_file either: binary or too large'),
    truncated: z.boolean().describe('true when more matches were found than max_matches'),
    incomplete: z
      .boolean()
      .describe(`true when the search stopped after ${MAX_SEARCH_CHARS} characters of text`),
  },
  pathArguments: { path: 'one' },
  async handler(args, { perimeter, view, instructions, filter, notes }) {
    const max = args.max_matches ?? DEFAULT_MATCHES;
    const context = args.context ?? 0;
    let matcher;
    try {
      matcher = compileMatcher(args.pattern, {
        regex: args.regex === true,
        caseSensitive: args.case_sensitive !== false,
      });
    } catch (error) {
      if (error instanceof SearchPatternError)
        throw new ToolError(`invalid pattern: ${error.message}`, 'refused');
      throw error;
    }
    const within =
      args.path === undefined || args.path === ''
        ? ''
        : requirePath(args.path, ' (leave path out to search every readable file)');
    // the same tree and decision as get_file: instruction files as the trusted ref holds them
    const index = await readableTree(view, instructions, perimeter);
    const readable = index.readable(perimeter);
    // A path with nothing readable at or below it (hidden, gone or never there) searches nothing, before
    // anything is read: the answer and the requests are the same for all three.
    const files = [...readable.files]
      .filter((p) => within === '' || p === within || p.startsWith(`${within}/`))
      .sort()
      .map((p) => index.get(p)!)
      .filter((e) => e.type === 'blob' && e.mode !== '120000');
    const shown = await shownBlobs(view, filter, files);
    const matches: Array<LineHit & { path: string }> = [];
    const skipped: Array<{ path: string; note: string }> = [];
    let searched = 0;
    let chars = 0;
    let truncated = false;
    let incomplete = false;
    for (const file of files) {
      const blob = shown.get(file.sha)!;
      if (!('text' in blob)) {
        skipped.push({ path: file.path, note: blob.note });
        continue;
      }
      if (chars + blob.text.length > MAX_SEARCH_CHARS) {
        incomplete = true;
        break;
      }
      chars += blob.text.length;
      searched++;
      const hits = matchLines(linesOf(blob.text), matcher, context, max + 1 - matches.length);
      if (hits.length > 0) notes.paths.push(file.path);
      for (const hit of hits) matches.push({ path: file.path, ...hit });
      if (matches.length > max) {
        truncated = true;
        matches.length = max;
        break;
      }
    }
    return {
      structured: {
        matches,
        files_searched: searched,
        files_not_searched: skipped,
        truncated,
        incomplete,
      },
    };
  },
});
