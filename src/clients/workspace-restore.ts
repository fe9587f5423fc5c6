import { diffArrays } from 'diff';

/**
 * The file to push from a workspace file that was handed out with placeholders (gateway/reads/disk-form.ts):
 * every line the agent left as it was handed out becomes again the text it stood for, so the original values
 * go back untouched; lines the agent wrote go as written. Refused, naming the line, when a line that held a
 * placeholder or mark was changed or removed, or a written line holds a placeholder or mark (moved or copied
 * where none was handed out): the value it stood for cannot follow it. Pure.
 */
export function restoreHidden(
  shown: string,
  originals: Readonly<Record<string, string>>,
  edited: string,
  marks: readonly string[],
): { text: string; originals: Record<string, string> } | { refused: string[] } {
  const before = shown.split('\n');
  const after = edited.split('\n');
  const out: string[] = [];
  /** the same, for the edited text: what its lines left as handed out stand for, for the next push */
  const kept: Record<string, string> = {};
  const refused: string[] = [];
  let i = 0;
  let j = 0;
  for (const part of diffArrays(before, after)) {
    for (const line of part.value) {
      if (part.removed) {
        if (Object.hasOwn(originals, String(i)))
          refused.push(`line ${i + 1} (as handed out): a placeholder or mark there was changed or removed`);
        i++;
      } else if (part.added) {
        if (marks.some((mark) => line.includes(mark)))
          refused.push(
            `line ${j + 1}: holds a placeholder or mark where none was handed out (moved or copied)`,
          );
        out.push(line);
        j++;
      } else {
        const original = originals[String(i)];
        if (original !== undefined) kept[String(j)] = original;
        out.push(original ?? line);
        i++;
        j++;
      }
    }
  }
  return refused.length > 0 ? { refused } : { text: out.join('\n'), originals: kept };
}
