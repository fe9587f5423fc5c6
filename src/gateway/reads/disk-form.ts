import type { AnswerFilter } from '../../safety/answer-filter.js';
import { neutralize } from '../../safety/neutralize.js';

/**
 * A text file as the workspace holds it: as get_file shows it, each secret value a `[hidden: <kind>]`
 * placeholder and each span a reader would not see marked, so the agent on disk sees what it sees through
 * the tools. `originals` gives, for each line of the shown text that differs from the file (0-based), the
 * file's text it stands for, for the push to put back; null when nothing differs. Null as a whole when the
 * marks would not keep the lines one to one (then the file is left out, never written as it is).
 */
export interface DiskForm {
  text: string;
  originals: Record<string, string> | null;
}

export async function diskForm(filter: AnswerFilter, original: string): Promise<DiskForm | null> {
  const redaction = await filter.redact(original);
  const shown = neutralize(redaction.text).text;
  if (shown === original) return { text: original, originals: null };
  // the original text behind each line of the redacted text: a hidden value may span lines, a placeholder never
  const chunks: string[] = [];
  let chunk = '';
  let at = 0;
  const spans = redaction.spans ?? [];
  if (spans.length !== redaction.hidden) return null;
  const plain = (until: number): void => {
    for (const part of original.slice(at, until).split('\n').entries()) {
      if (part[0] > 0) {
        chunks.push(chunk);
        chunk = '';
      }
      chunk += part[1];
    }
    at = until;
  };
  for (const span of spans) {
    plain(span.start);
    chunk += original.slice(span.start, span.end);
    at = span.end;
  }
  plain(original.length);
  chunks.push(chunk);
  const lines = shown.split('\n');
  // the marks replace or add characters within a line, never a line end: one shown line per chunk
  if (lines.length !== chunks.length || redaction.text.split('\n').length !== chunks.length) return null;
  const originals: Record<string, string> = {};
  lines.forEach((line, i) => {
    if (line !== chunks[i]) originals[String(i)] = chunks[i]!;
  });
  return { text: shown, originals };
}
