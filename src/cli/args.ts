import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './io.js';

type Option = NonNullable<ParseArgsConfig['options']>[string];

/** One flag of a command: node:util's option, with what `--help` says of it. */
export type Flag = Option & {
  /** the value's placeholder in `--help` (string flags), e.g. FILE */
  value?: string;
  help: string;
};

export type Flags = Record<string, Flag>;

/** node:util parseArgs (which ignores the help fields), with its errors turned into a UsageError. */
export function parseCommandArgs<O extends Flags>(args: string[], options: O, positionals: boolean) {
  try {
    return parseArgs({ args, options, allowPositionals: positionals, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

const WIDTH = 100;

/** Words wrapped to `width` columns, every line after the first indented by `indent`. */
export function wrap(text: string, indent: number, width = WIDTH): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line !== '' && indent + line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  lines.push(line);
  return lines.join(`\n${' '.repeat(indent)}`);
}

/** A command's `--help`: usage, what it does, each argument and flag with its meaning, exit codes. */
export function renderHelp(command: {
  usage: string;
  about: string;
  args?: Record<string, string>;
  flags: Flags;
  exits: string;
}): string {
  const rows: Array<[string, string]> = [
    ...Object.entries(command.args ?? {}),
    ...Object.entries(command.flags).map(([name, flag]): [string, string] => [
      `--${name}${flag.type === 'string' ? ` ${flag.value ?? 'VALUE'}` : ''}`,
      flag.help,
    ]),
    ['--help', 'print this help'],
  ];
  const left = Math.min(Math.max(...rows.map(([name]) => name.length)) + 4, 28);
  const table = rows.map(([name, help]) => {
    const label = `  ${name}`;
    const pad = label.length + 2 > left ? `\n${' '.repeat(left)}` : ' '.repeat(left - label.length);
    return `${label}${pad}${wrap(help, left)}`;
  });
  return [
    `Usage: ${command.usage}`,
    '',
    wrap(command.about, 0),
    '',
    'Arguments and options:',
    ...table,
    '',
    `Exit codes: ${wrap(command.exits, 12)}`,
    '',
  ].join('\n');
}
