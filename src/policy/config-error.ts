export interface ConfigProblem {
  file: string;
  line: number;
  column: number;
  /** Where in the document, e.g. `perimeters.implementer.write[1]`. */
  key: string;
  message: string;
}

export function formatProblem(problem: ConfigProblem): string {
  return `${problem.file}:${problem.line}:${problem.column}: ${problem.key}: ${problem.message}`;
}

/** message = one line per problem: `file:line:column: key: message` */
export class ConfigError extends Error {
  readonly code = 'invalid-config';
  readonly problems: ConfigProblem[];

  constructor(problems: ConfigProblem[]) {
    super(problems.map(formatProblem).join('\n'));
    this.name = 'ConfigError';
    this.problems = problems;
  }
}
