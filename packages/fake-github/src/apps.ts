/**
 * GitHub Apps as the stand-in knows them. An installation token acts as its App: its login is `<slug>[bot]`
 * (https://docs.github.com/apps/creating-github-apps/authenticating-with-a-github-app/authenticating-as-a-github-app-installation),
 * and what it creates carries the App's numeric id: a check run's `app.id`, the `integration_id` a ruleset's
 * required status check names (https://docs.github.com/rest/repos/rules#create-a-repository-ruleset).
 * A login that ends in "[bot]" can only be an App's (a person's login may not hold brackets), so every such
 * login is an App; any other login is a person.
 */
export interface AppIdentity {
  id: number;
  slug: string;
  name: string;
}

/** An App an installation token acts as: `slug` gives its login `<slug>[bot]`, `id` its numeric App id. */
export interface AppToken {
  slug: string;
  id: number;
  /** its display name; the slug by default */
  name?: string;
}

export const identityOf = (app: AppToken): AppIdentity => ({
  id: app.id,
  slug: app.slug,
  name: app.name ?? app.slug,
});

/**
 * The App behind every GITHUB_TOKEN. GitHub does not list its id in the docs; `GET /apps/github-actions`
 * answers 15368, the id rulesets are configured with for Actions checks
 * (https://github.com/integrations/terraform-provider-github/pull/2474,
 * https://github.com/joshjohanning/github-misc-scripts/pull/57).
 */
export const GITHUB_ACTIONS: AppIdentity = { id: 15368, slug: 'github-actions', name: 'GitHub Actions' };

/** Ids given to Apps the tests did not number (a bot login among `extraTokens`, say), in order of first use. */
const FIRST_UNNUMBERED_ID = 900_001;

/** The Apps of one stand-in: each slug has one id and each id one slug, as on GitHub. */
export class AppBook {
  private readonly bySlug = new Map<string, AppIdentity>();
  private readonly byId = new Map<number, AppIdentity>();
  private next = FIRST_UNNUMBERED_ID;

  constructor() {
    this.register(GITHUB_ACTIONS);
  }

  /** Adds an App; registering the same slug and id again is a no-op, a clash of either throws. */
  register(app: AppIdentity): AppIdentity {
    if (!/^[a-z0-9][a-z0-9-]*$/.test(app.slug))
      throw new Error(
        `an App slug is lower-case letters, digits and hyphens, got ${JSON.stringify(app.slug)}`,
      );
    if (!Number.isSafeInteger(app.id) || app.id <= 0)
      throw new Error(`an App id is a positive integer, got ${app.id}`);
    const known = this.bySlug.get(app.slug);
    if (known && known.id === app.id) return known;
    if (known) throw new Error(`App ${app.slug} already has id ${known.id}, not ${app.id}`);
    const holder = this.byId.get(app.id);
    if (holder) throw new Error(`App id ${app.id} already belongs to ${holder.slug}`);
    const entry = { ...app };
    this.bySlug.set(entry.slug, entry);
    this.byId.set(entry.id, entry);
    return entry;
  }

  /** The App a login acts as (`<slug>[bot]`), numbered now when the tests gave no id; null for a person. */
  forLogin(login: string): AppIdentity | null {
    const match = /^(.+)\[bot\]$/.exec(login);
    if (!match) return null;
    const slug = match[1]!.toLowerCase();
    const known = this.bySlug.get(slug);
    if (known) return known;
    while (this.byId.has(this.next)) this.next++;
    return this.register({ id: this.next++, slug, name: slug });
  }
}
