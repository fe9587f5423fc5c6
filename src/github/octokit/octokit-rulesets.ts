import type { RefRuleset } from '../../policy/index.js';
import type { RestClient } from './octokit-client.js';

/** One ruleset in GitHub's answer, as far as a lock needs it. */
interface WireRuleset {
  id: number;
  name: string;
  target?: string;
  enforcement: string;
  current_user_can_bypass?: string;
  conditions?: { ref_name?: { include?: string[]; exclude?: string[] } } | null;
  rules?: Array<{ type: string }>;
}

const PAGE = 100;

/**
 * The branch and tag rulesets that apply to the repository, its organization's included, each read whole:
 * the list (https://docs.github.com/rest/repos/rules#get-all-repository-rulesets, `includes_parents`: "Include
 * rulesets configured at higher levels that apply to this repository") names them without their conditions
 * and rules, and GET /repos/{owner}/{repo}/rulesets/{ruleset_id}
 * (https://docs.github.com/rest/repos/rules#get-a-repository-ruleset) gives those and
 * `current_user_can_bypass`, which only the repository-level endpoint answers. Both take only read access.
 */
export async function listRulesets(rest: RestClient): Promise<RefRuleset[]> {
  const ids: number[] = [];
  for (let page = 1; ; page++) {
    const data = await rest.read<WireRuleset[]>('list rulesets', 'GET /repos/{owner}/{repo}/rulesets', {
      includes_parents: true,
      targets: 'branch,tag',
      per_page: PAGE,
      page,
    });
    ids.push(...data.map((r) => r.id));
    if (data.length < PAGE) break;
  }
  const rulesets = await Promise.all(
    ids.map((id) =>
      rest.read<WireRuleset>(`get ruleset ${id}`, 'GET /repos/{owner}/{repo}/rulesets/{ruleset_id}', {
        ruleset_id: id,
        includes_parents: true,
      }),
    ),
  );
  return rulesets.map((r) => ({
    name: r.name,
    target: r.target ?? 'branch',
    enforcement: r.enforcement,
    bypass: r.current_user_can_bypass ?? null,
    include: r.conditions?.ref_name?.include ?? [],
    exclude: r.conditions?.ref_name?.exclude ?? [],
    rules: (r.rules ?? []).map((rule) => rule.type),
  }));
}
