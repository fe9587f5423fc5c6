/**
 * How the demo shows a step: its log as a runner shows it by default, and its job summary as plain text.
 * Kept apart from scripts/demo.ts (which runs the whole lifecycle when imported) so a test can check them.
 */
import { decodeHTML } from 'entities';
import { parseStdout } from '@perimeter/test-rigs';

/**
 * What @actions/artifact logs while it uploads the record: a line each for validating the name, zipping,
 * uploading and finalizing. Useful when an upload fails, noise in a demo of the verdict.
 */
const ARTIFACT_PROGRESS = [
  /^Artifact name is valid!$/,
  /^Root directory input is valid!$/,
  /^Uploading artifact: /,
  /^Beginning upload of artifact content/,
  /^Uploaded bytes \d+$/,
  /^Finished uploading artifact content/,
  /^SHA256 digest of uploaded artifact is /,
  /^Finalizing artifact upload$/,
  /^Artifact .+ successfully finalized\. Artifact ID \d+$/,
];

/**
 * A step's log as a runner shows it with step debug logging off: `::debug::` lines dropped (the runner
 * hides them unless ACTIONS_STEP_DEBUG is set), workflow commands applied, `masks` replaced by ***, the
 * artifact client's progress folded into one line, and blank lines left out.
 */
export function shownLog(stdout: string, masks: string[]): string[] {
  const withoutDebug = stdout
    .split('\n')
    .filter((line) => !line.startsWith('::debug::'))
    .join('\n');
  const lines = parseStdout(withoutDebug, masks)
    .log.split('\n')
    .filter((line) => line.trim() !== '');
  const shown: string[] = [];
  let folded = 0;
  for (const line of lines) {
    if (ARTIFACT_PROGRESS.some((pattern) => pattern.test(line))) {
      if (folded++ === 0) shown.push('');
      shown[shown.length - 1] = `(the record's upload: ${folded} lines of @actions/artifact progress)`;
      continue;
    }
    folded = 0;
    shown.push(line);
  }
  return shown;
}

/**
 * The job summary's markdown as text to read in a terminal: the HTML the summary uses for inline code
 * dropped (the text stays), every other tag removed, and HTML entities decoded (the receipt writes
 * repository text as entities so that it cannot inject markup on GitHub; a terminal renders none).
 */
export function plainSummary(markdown: string): string {
  const untagged = markdown.replace(/<\/?code>/g, '').replace(/<[^>\n]*>/g, '');
  return decodeHTML(untagged);
}
