import { describe, expect, it } from 'vitest';
import { ACTIONLINT_VERSION, CHECKOUT_INPUTS, lintFragment, lintWorkflow } from './lint-workflow.js';

const job = (steps: string) =>
  [
    'on: { workflow_dispatch: {} }',
    'jobs:',
    '  a:',
    '    runs-on: ubuntu-latest',
    '    steps:',
    steps,
    '',
  ].join('\n');
const messages = async (text: string) => (await lintWorkflow(text)).map((p) => `${p.line}: ${p.message}`);

describe('lintWorkflow', () => {
  it(`runs actionlint ${ACTIONLINT_VERSION}, which refuses an undefined input`, async () => {
    const workflow = [
      'on: { workflow_dispatch: { inputs: { task: { description: t } } } }',
      'jobs:',
      '  a: { runs-on: ubuntu-latest, steps: [{ run: "echo ${{ inputs.nope }}" }] }',
      '',
    ].join('\n');
    expect(await messages(workflow)).toEqual([
      '3: property "nope" is not defined in object type {task: any}',
    ]);
  });

  describe('when an expression reads the vars context', () => {
    it('accepts it', async () => {
      expect(await messages(job('      - run: echo "${{ vars.PERIMETER_APP_ID }}"'))).toEqual([]);
    });

    it('refuses a context that does not exist', async () => {
      expect(await messages(job('      - run: echo "${{ varz.PERIMETER_APP_ID }}"'))).toEqual([
        expect.stringMatching(/^6: undefined variable "varz"/),
      ]);
    });
  });

  describe('when a step uses actions/checkout', () => {
    it.each([5, 6, 7])('accepts every input of v%i', async (major) => {
      const inputs = CHECKOUT_INPUTS[major]!.map((name) => `${name}: x`).join(', ');
      expect(
        await messages(job(`      - uses: actions/checkout@v${major}\n        with: { ${inputs} }`)),
      ).toEqual([]);
    });

    it.each(['v7', 'v7.0.1', 'v6', 'v5'])('refuses an input @%s has not', async (ref) => {
      const found = await lintWorkflow(
        job(`      - uses: actions/checkout@${ref}\n        with: { persist: false }`),
      );
      expect(found).toEqual([
        expect.objectContaining({
          line: 7,
          column: 17,
          kind: 'checkout-inputs',
          message: expect.stringMatching(/^input "persist" is not defined in action "actions\/checkout@v\d"/),
        }),
      ]);
    });

    it('refuses allow-unsafe-pr-checkout on v5, which came in v6.1.0', async () => {
      expect(
        await messages(
          job('      - uses: actions/checkout@v5\n        with:\n          allow-unsafe-pr-checkout: true'),
        ),
      ).toEqual([expect.stringMatching(/^8: input "allow-unsafe-pr-checkout" is not defined/)]);
    });

    it('refuses a major newer than the ones known', async () => {
      expect(await messages(job('      - uses: actions/checkout@v8'))).toEqual([
        '6: actions/checkout@v8 is newer than the newest major known here (v7)',
      ]);
    });

    it("leaves v4 to actionlint's own data", async () => {
      expect(
        await messages(job('      - uses: actions/checkout@v4\n        with: { persist: false }')),
      ).toEqual([
        expect.stringMatching(/^7: input "persist" is not defined in action "actions\/checkout@v4"/),
      ]);
    });
  });
});

describe('lintFragment', () => {
  it("lints a job's keys inside a job, counting lines in the fragment", async () => {
    const fragment = ['    steps:', '      - run: echo ok', '      - run: echo "${{ secretz.X }}"', ''].join(
      '\n',
    );
    expect((await lintFragment(fragment)).map((p) => `${p.line}: ${p.message}`)).toEqual([
      expect.stringMatching(/^3: undefined variable "secretz"/),
    ]);
  });

  it('lints steps inside a job and a job inside a workflow', async () => {
    expect(
      await lintFragment('      - uses: actions/checkout@v7\n        with: { persist: false }\n'),
    ).toEqual([expect.objectContaining({ line: 2, kind: 'checkout-inputs' })]);
    expect(await lintFragment('  a:\n    runs-on: ubuntu-latest\n    steps: [{ run: echo }]\n')).toEqual([]);
  });

  it('does not add runs-on to a job that has its own', async () => {
    expect(await lintFragment('    runs-on: ubuntu-latest\n    steps: [{ run: echo }]\n')).toEqual([]);
  });

  it('throws on a fragment whose indentation places it nowhere', async () => {
    await expect(lintFragment('   steps: []\n')).rejects.toThrow(/cannot tell where a fragment starting/);
  });
});
