import { describe, expect, it } from 'vitest';
import { explainConfigError, explainExposureError } from '../../src/action/config-loader.js';
import { ConfigError, ExposureError, parseConfig, selectPerimeters } from '../../src/policy/index.js';

const TEXT = `version: 1
perimeters:
  test-author:
    read: ["test/**"]
    write: ["test/**"]
    branches: ["agent/**"]
  implementer:
    read: ["src/**"]
    write: ["src/**"]
`;
const config = parseConfig(TEXT);

function exposureError(names: string[] | null, branch: string, defaultBranch = 'trunk'): ExposureError {
  try {
    selectPerimeters(config, names, branch, defaultBranch);
  } catch (error) {
    expect(error).toBeInstanceOf(ExposureError);
    return error as ExposureError;
  }
  throw new Error('expected an ExposureError');
}

describe('explainExposureError', () => {
  describe('when a name is unknown', () => {
    it('names the input, the unknown name and the defined ones, with no annotation', () => {
      expect(explainExposureError(exposureError(['implementor'], 'main'), config, TEXT, 'main')).toEqual({
        message:
          'perimeters: no perimeter named "implementor" in perimeters.yml; it defines "test-author", "implementer"',
        annotations: [],
      });
    });
  });

  describe('when a perimeter may not be bound to the branch', () => {
    it("quotes its branches, names the input and annotates the perimeter's branches line", () => {
      expect(explainExposureError(exposureError(null, 'main'), config, TEXT, 'main')).toEqual({
        message:
          'branch "main" is not allowed for this perimeter: perimeter "test-author" allows branches ["agent/**"] (input branch)',
        annotations: [
          {
            message: 'branch "main" is not in ["agent/**"]',
            title: 'perimeter "test-author" may not be bound to this branch',
            file: 'perimeters.yml',
            startLine: 6,
            startColumn: 5,
          },
        ],
      });
    });
  });
});

describe('explainExposureError, when the branch is the default branch and a perimeter does not name it', () => {
  it("names the input and annotates the perimeter's own line when it has no branches list", () => {
    const refusal = explainExposureError(
      exposureError(['implementer'], 'main', 'main'),
      config,
      TEXT,
      'main',
    );
    expect(refusal.message).toMatch(
      /^branch "main" is the repository's default branch, .* \(input branch\)$/,
    );
    expect(refusal.annotations).toEqual([
      {
        message: 'branch "main" is the default branch; add branches: ["main"]',
        title: 'perimeter "implementer" may not be bound to this branch',
        file: 'perimeters.yml',
        startLine: 7,
        startColumn: 3,
      },
    ]);
  });
});

describe('explainConfigError', () => {
  it('counts the problems and annotates each on its line', () => {
    let error: unknown;
    try {
      parseConfig('version: 1\nperimeters:\n  a:\n    read: ["x"]\n    wirte: ["x"]\n', 'conf/p.yml');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const refusal = explainConfigError(error as ConfigError, 'conf/p.yml');
    expect(refusal.message).toMatch(/^conf\/p\.yml is invalid \(1 problem\):\n/);
    expect(refusal.annotations).toEqual([
      expect.objectContaining({
        title: 'invalid conf/p.yml',
        file: 'conf/p.yml',
        startLine: 5,
        startColumn: 5,
      }),
    ]);
  });
});
