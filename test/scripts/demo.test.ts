/**
 * `npm run demo` is the first thing a new user runs: its output shows the verdict, not the artifact client's
 * debug chatter, and its job summary reads as text, without the HTML entities the markdown carries.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@perimeter/test-rigs';
import { plainSummary, shownLog } from '../../scripts/demo-text.js';

const run = promisify(execFile);

describe('shownLog', () => {
  const stdout = [
    'Perimeter: verifying',
    '::debug::[Request] CreateArtifact http://127.0.0.1/twirp%0A{%0A  "ok": true%0A}',
    'Artifact name is valid!',
    'Root directory input is valid!',
    'Uploading artifact: perimeter-implement-1.zip',
    'Uploaded bytes 2229',
    'Artifact perimeter-implement-1 successfully finalized. Artifact ID 7000',
    '::add-mask::s3cret-value',
    '::error file=docs/a.md::docs/a.md: added outside every perimeter',
    'the value s3cret-value',
  ].join('\n');

  describe('when a step logged debug lines and an artifact upload', () => {
    it('drops the debug lines (continuations included), folds the upload, keeps the rest, masked', () => {
      expect(shownLog(stdout, [])).toEqual([
        'Perimeter: verifying',
        "(the record's upload: 5 lines of @actions/artifact progress)",
        'error: docs/a.md: added outside every perimeter',
        'the value ***',
      ]);
    });
  });
});

describe('plainSummary', () => {
  describe('when the markdown holds inline code and entities', () => {
    it('shows the text they stand for', () => {
      expect(
        plainSummary(
          '| <code>src/&#60;x&#62;.ts</code> | implementer&#58; write glob &#34;src/&#42;&#42;&#34; |',
        ),
      ).toBe('| src/<x>.ts | implementer: write glob "src/**" |');
    });
  });
});

describe('npm run demo', () => {
  it('prints the verdict, the summary as text, and no upload debug output', async () => {
    const tsx = join(REPO_ROOT, 'node_modules', '.bin', 'tsx');
    const { stdout } = await run(tsx, [join(REPO_ROOT, 'scripts', 'demo.ts')], {
      cwd: REPO_ROOT,
      maxBuffer: 16 * 1024 * 1024,
    });
    expect(stdout).toContain('perimeter: failure');
    expect(stdout).toContain('docs/roadmap.md: modified outside every perimeter');
    expect(stdout).toContain('Job summary (its markdown as text)');
    expect(stdout).toContain(
      '| docs/roadmap.md | modified | **refused** | implementer: no write glob matches |',
    );
    expect(stdout).not.toMatch(/debug:|Artifact name is valid|signed_upload_url|"content-type"/);
    expect(stdout).not.toMatch(/&#?\w+;/);
    expect(stdout).not.toContain('<code>');
    expect(stdout.split('\n').length).toBeLessThan(120);
  });
});
