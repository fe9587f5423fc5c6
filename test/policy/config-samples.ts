/** perimeters.yml samples shared by the config and schema tests. */
export interface Sample {
  name: string;
  yaml: string;
  valid: boolean;
  /** Set when JSON Schema cannot express the check: the schema is expected to disagree, for this reason. */
  schemaExempt?: string;
}

const header = 'version: 1\nperimeters:\n';
const one = (body: string): string => `${header}  p:\n${body}`;

export const SAMPLES: Sample[] = [
  { name: 'minimal', yaml: one('    read: ["src/**"]\n'), valid: true },
  {
    name: 'review globs',
    yaml: one('    read: ["**"]\n    write: ["src/**"]\n    review: ["docs/**", "AGENTS.md"]\n'),
    valid: true,
  },
  { name: 'review as a string', yaml: one('    review: "docs/**"\n'), valid: false },
  { name: 'review with an invalid glob', yaml: one('    review: ["/docs/**"]\n'), valid: false },
  {
    name: 'instructions from the branch',
    yaml: one('    read: ["**"]\n    instructions: branch\n'),
    valid: true,
  },
  {
    name: 'instructions from the config ref',
    yaml: one('    read: ["**"]\n    instructions: config-ref\n'),
    valid: true,
  },
  {
    name: 'instructions from elsewhere',
    yaml: one('    read: ["**"]\n    instructions: workspace\n'),
    valid: false,
  },
  {
    name: 'instructions as a boolean',
    yaml: one('    read: ["**"]\n    instructions: true\n'),
    valid: false,
  },
  {
    name: 'design example',
    yaml: `# yaml-language-server: $schema=./perimeters.schema.json
version: 1
perimeters:
  test-author:
    description: Writes tests from the spec; never sees the implementation.
    tools: [get_tree, get_file, get_files, push_files, list_commits, get_commit]
    read: ["specs/**", "test/**", "package.json"]
    write: ["test/**"]
    branches: ["agent/**"]
  implementer:
    read: ["specs/**", "test/**", "src/**", "package.json"]
    write: ["src/**"]
`,
    valid: true,
  },
  {
    name: 'every key',
    yaml: one(`    description: all keys
    tools: [get_file]
    read: ["**"]
    write: ["docs/**", ".github/workflows/*.yml", "{src,test}/**/*.ts", "[[:alpha:]]*.md", "a[(]b[)].txt"]
    branches: [main, "release/*"]
    allow-protected: [".github/workflows/**"]
    allow-credential-files: ["fixtures/*.pem"]
    allow-secrets-in: ["test/fixtures/**"]
    limits: { files-per-push: 1, bytes-per-file: 104857600, bytes-per-push: 5 }
`),
    valid: true,
  },
  { name: 'empty read and write lists', yaml: one('    read: []\n    write: []\n'), valid: true },
  { name: 'empty perimeter mapping', yaml: one('    {}\n'), valid: true },
  { name: 'version 1.0', yaml: 'version: 1.0\nperimeters:\n  p: {}\n', valid: true },
  { name: 'long valid name', yaml: `${header}  ${'a'.repeat(63)}: {}\n`, valid: true },
  { name: 'unicode glob', yaml: one('    read: ["docs/café/**"]\n'), valid: true },

  { name: 'empty file', yaml: '', valid: false },
  { name: 'a list at the top', yaml: '- 1\n', valid: false },
  { name: 'missing version', yaml: 'perimeters:\n  p: {}\n', valid: false },
  { name: 'version 2', yaml: 'version: 2\nperimeters:\n  p: {}\n', valid: false },
  { name: 'version as string', yaml: 'version: "1"\nperimeters:\n  p: {}\n', valid: false },
  { name: 'missing perimeters', yaml: 'version: 1\n', valid: false },
  { name: 'no perimeters', yaml: 'version: 1\nperimeters: {}\n', valid: false },
  { name: 'perimeters as a list', yaml: 'version: 1\nperimeters: [a]\n', valid: false },
  { name: 'unknown top-level key', yaml: `${header}  p: {}\nextra: 1\n`, valid: false },
  { name: 'unknown perimeter key', yaml: one('    reads: ["src/**"]\n'), valid: false },
  { name: 'perimeter is null', yaml: `${header}  p:\n`, valid: false },
  { name: 'uppercase name', yaml: `${header}  Test: {}\n`, valid: false },
  { name: 'underscore in name', yaml: `${header}  test_author: {}\n`, valid: false },
  { name: 'name starting with a digit', yaml: `${header}  1st: {}\n`, valid: false },
  { name: 'trailing hyphen in name', yaml: `${header}  test-: {}\n`, valid: false },
  { name: 'double hyphen in name', yaml: `${header}  a--b: {}\n`, valid: false },
  { name: 'name too long', yaml: `${header}  ${'a'.repeat(64)}: {}\n`, valid: false },
  { name: 'read as a string', yaml: one('    read: src/**\n'), valid: false },
  { name: 'glob as a number', yaml: one('    read: [1]\n'), valid: false },
  { name: 'empty glob', yaml: one('    read: [""]\n'), valid: false },
  { name: 'absolute glob', yaml: one('    write: ["/src/**"]\n'), valid: false },
  { name: 'negated glob', yaml: one('    write: ["!src/**"]\n'), valid: false },
  { name: 'traversal glob', yaml: one('    write: ["src/../**"]\n'), valid: false },
  { name: 'dot segment glob', yaml: one('    write: ["./src/**"]\n'), valid: false },
  { name: 'empty segment glob', yaml: one('    write: ["src//a"]\n'), valid: false },
  { name: 'trailing slash glob', yaml: one('    write: ["src/"]\n'), valid: false },
  { name: 'backslash glob', yaml: one('    write: ["src\\\\**"]\n'), valid: false },
  { name: '.git glob', yaml: one('    read: ["**/.git/**"]\n'), valid: false },
  { name: '.GIT glob', yaml: one('    read: [".GIT/config"]\n'), valid: false },
  { name: '.git. glob', yaml: one('    read: [".git./config"]\n'), valid: false },
  { name: 'git~1 glob', yaml: one('    read: ["GIT~1/config"]\n'), valid: false },
  { name: 'parenthesis glob', yaml: one('    read: ["docs/a (copy).md"]\n'), valid: true },
  { name: 'extglob', yaml: one('    read: ["@(src|test)/**"]\n'), valid: false },
  { name: 'whitespace around glob', yaml: one('    read: [" src/**"]\n'), valid: false },
  { name: 'control character in glob', yaml: one('    read: ["src/\\u0001"]\n'), valid: false },
  { name: 'zero-width character in glob', yaml: one('    read: ["src/\\u200b**"]\n'), valid: false },
  { name: 'duplicate glob', yaml: one('    read: ["a", "a"]\n'), valid: false },
  { name: 'unknown tool', yaml: one('    tools: [get_file, list_branches]\n'), valid: false },
  { name: 'empty tools', yaml: one('    tools: []\n'), valid: false },
  { name: 'duplicate tool', yaml: one('    tools: [get_file, get_file]\n'), valid: false },
  { name: 'empty branches', yaml: one('    branches: []\n'), valid: false },
  { name: 'branch with refs/', yaml: one('    branches: ["refs/heads/main"]\n'), valid: false },
  { name: 'branch with space', yaml: one('    branches: ["my branch"]\n'), valid: false },
  { name: 'branch with ..', yaml: one('    branches: ["a..b"]\n'), valid: false },
  { name: 'description as a number', yaml: one('    description: 5\n'), valid: false },
  { name: 'limits as a number', yaml: one('    limits: 5\n'), valid: false },
  { name: 'zero limit', yaml: one('    limits: { files-per-push: 0 }\n'), valid: false },
  { name: 'fractional limit', yaml: one('    limits: { bytes-per-push: 1.5 }\n'), valid: false },
  { name: 'limit as a string', yaml: one('    limits: { bytes-per-push: "10" }\n'), valid: false },
  {
    name: 'bytes-per-file above 100 MB',
    yaml: one('    limits: { bytes-per-file: 104857601 }\n'),
    valid: false,
  },
  {
    name: 'deny, protect, trust and untrusted-triggers',
    yaml: `version: 1
protect: [manifests, ci]
deny: ["secrets/**"]
trust:
  associations: [OWNER, MEMBER, COLLABORATOR]
  users: ["dependabot[bot]"]
perimeters:
  p:
    write: ["**"]
    deny: ["package.json", "**/*.lock"]
    protect: [editors]
  triage:
    read: ["docs/**"]
    untrusted-triggers: true
`,
    valid: true,
  },
  {
    name: 'trust with users only',
    yaml: `version: 1\ntrust: { users: [octocat] }\nperimeters:\n  p: {}\n`,
    valid: true,
  },
  { name: 'unknown family', yaml: `version: 1\nprotect: [lockfiles]\nperimeters:\n  p: {}\n`, valid: false },
  { name: 'unknown family in a perimeter', yaml: one('    protect: [hooks]\n'), valid: false },
  {
    name: 'unknown association',
    yaml: `version: 1\ntrust: { associations: [ADMIN] }\nperimeters:\n  p: {}\n`,
    valid: false,
  },
  { name: 'trust that trusts nobody', yaml: `version: 1\ntrust: {}\nperimeters:\n  p: {}\n`, valid: false },
  {
    name: 'trust with empty lists',
    yaml: `version: 1\ntrust: { associations: [], users: [] }\nperimeters:\n  p: {}\n`,
    valid: false,
  },
  {
    name: 'unknown trust key',
    yaml: `version: 1\ntrust: { teams: [a] }\nperimeters:\n  p: {}\n`,
    valid: false,
  },
  {
    name: 'invalid login',
    yaml: `version: 1\ntrust: { users: ["a b"] }\nperimeters:\n  p: {}\n`,
    valid: false,
  },
  { name: 'untrusted-triggers not a boolean', yaml: one('    untrusted-triggers: "yes"\n'), valid: false },
  { name: 'deny not a list', yaml: one('    deny: "x"\n'), valid: false },
  {
    name: 'invalid top-level deny glob',
    yaml: `version: 1\ndeny: ["/x"]\nperimeters:\n  p: {}\n`,
    valid: false,
  },
  { name: 'unknown limit', yaml: one('    limits: { pushes: 1 }\n'), valid: false },
  {
    name: 'pull requests by author and head branch',
    yaml: one(
      '    write: ["src/**"]\n    pull-requests: { authors: [Copilot, "copilot-swe-agent[bot]"], branches: ["copilot/**"] }\n',
    ),
    valid: true,
  },
  {
    name: 'pull requests by author only',
    yaml: one('    pull-requests: { authors: [Copilot] }\n'),
    valid: true,
  },
  {
    name: 'pull requests by head branch only',
    yaml: one('    pull-requests: { branches: ["agents/*"] }\n'),
    valid: true,
  },
  { name: 'pull requests matching nothing', yaml: one('    pull-requests: {}\n'), valid: false },
  {
    name: 'pull requests with empty lists',
    yaml: one('    pull-requests: { authors: [], branches: [] }\n'),
    valid: false,
  },
  { name: 'pull requests as a list', yaml: one('    pull-requests: [Copilot]\n'), valid: false },
  {
    name: 'pull requests with an unknown key',
    yaml: one('    pull-requests: { labels: [agent] }\n'),
    valid: false,
  },
  {
    name: 'pull request author that is no login',
    yaml: one('    pull-requests: { authors: ["copilot agent"] }\n'),
    valid: false,
  },
  {
    name: 'pull request author listed twice',
    yaml: one('    pull-requests: { authors: [Copilot, Copilot] }\n'),
    valid: false,
  },
  {
    name: 'pull request head branch with a ref prefix',
    yaml: one('    pull-requests: { branches: ["refs/heads/copilot/*"] }\n'),
    valid: false,
  },
  {
    name: 'pull request authors as a string',
    yaml: one('    pull-requests: { authors: Copilot }\n'),
    valid: false,
  },

  {
    name: 'duplicate perimeter',
    yaml: `${header}  p: {}\n  p: {}\n`,
    valid: false,
    schemaExempt: 'duplicate keys disappear when YAML becomes JSON',
  },
  {
    name: 'duplicate key in a perimeter',
    yaml: one('    read: []\n    read: ["a"]\n'),
    valid: false,
    schemaExempt: 'duplicate keys disappear when YAML becomes JSON',
  },
  {
    name: 'unbalanced brace',
    yaml: one('    read: ["src/{a,b"]\n'),
    valid: false,
    schemaExempt: 'glob parsing (brackets, braces) is not a regular language check',
  },
  {
    name: 'bracket that can only match "/"',
    yaml: one('    write: ["src/[/]x"]\n'),
    valid: false,
    schemaExempt: 'glob parsing (brackets, braces) is not a regular language check',
  },
  {
    name: 'globstar inside a name',
    yaml: one('    write: ["src/a**"]\n'),
    valid: false,
    schemaExempt: 'glob parsing (brackets, braces) is not a regular language check',
  },
  {
    name: 'alias used as a key',
    yaml: one('    description: &k write\n    *k : ["**"]\n'),
    valid: false,
    schemaExempt: 'an alias key becomes its plain value when YAML becomes JSON',
  },
  {
    name: 'fullwidth .git segment',
    yaml: one('    read: ["．ｇｉｔ/**"]\n'),
    valid: false,
    schemaExempt: 'Unicode NFKC folding cannot be written as a JSON Schema pattern',
  },
  {
    name: 'syntax error',
    yaml: 'version: 1\nperimeters: {p: [}\n',
    valid: false,
    schemaExempt: 'not YAML, so there is nothing to give the schema',
  },
];
