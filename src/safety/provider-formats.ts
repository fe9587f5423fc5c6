/**
 * Provider credentials recognised by their format alone: a fixed prefix or a shape no ordinary text
 * has. Where secretlint has the provider, these patterns are looser (other lengths, newer prefixes):
 * overlapping findings merge. Chosen rule by rule from gitleaks' and trufflehog's lists: formats with
 * a distinctive prefix or structure are here; rules that need a provider's name beside a generic value
 * (`bitbucket ... [a-z0-9]{32}`) are left to the settings rules, which hide values of names announcing
 * a secret (`BITBUCKET_CLIENT_SECRET=...`).
 */
export interface ProviderFormat {
  kind: string;
  pattern: RegExp;
  /** where the value starts relative to the match (patterns that open with a rare literal scan fastest) */
  from?: number;
  /**
   * For values that open with a long run of common characters: a literal found by indexOf, and how many
   * characters before it the (sticky) pattern is tried, so the text is not matched at every position.
   */
  anchor?: { literal: string; lead: number };
}

/** Word boundaries for tokens made of letters, digits, `_` and `-`. */
const B = String.raw`(?<![A-Za-z0-9_-])`;
const E = String.raw`(?![A-Za-z0-9_-])`;
const f = (kind: string, body: string, flags = ''): ProviderFormat => ({
  kind,
  pattern: new RegExp(`${B}(?:${body})${E}`, `g${flags}`),
});

export const PROVIDER_FORMATS: readonly ProviderFormat[] = [
  f('GitHub token', String.raw`gh[pousr]_[A-Za-z0-9_]{30,251}|github_pat_[A-Za-z0-9_]{22,244}`),
  f('GitLab token', String.raw`gl(?:pat|dt|rt|ptt|cbt|soat|ft|imt|agent|oas|wt)-[A-Za-z0-9_-]{20,255}`),
  f('OpenAI API key', String.raw`sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,255}`),
  f('Anthropic API key', String.raw`sk-ant-[a-z]{2,8}\d{0,3}-[A-Za-z0-9_-]{20,255}`),
  f('Groq API key', String.raw`gsk_[A-Za-z0-9]{48,56}`),
  f('xAI API key', String.raw`xai-[A-Za-z0-9]{70,90}`),
  f('Perplexity API key', String.raw`pplx-[A-Za-z0-9]{40,56}`),
  f('Replicate token', String.raw`r8_[A-Za-z0-9]{37}`),
  f('LangSmith API key', String.raw`lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}`),
  f('Stripe key', String.raw`(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,247}`),
  f('Stripe webhook secret', String.raw`whsec_[A-Za-z0-9+/=]{24,128}`),
  f('Google API key', String.raw`AIza[0-9A-Za-z_-]{35}`),
  f('Google OAuth client secret', String.raw`GOCSPX-[A-Za-z0-9_-]{28}`),
  f('Hugging Face token', String.raw`hf_[A-Za-z0-9]{30,64}`),
  f('PyPI token', String.raw`pypi-AgE[A-Za-z0-9_-]{50,}`),
  f('RubyGems API key', String.raw`rubygems_[a-f0-9]{48}`),
  f('Clojars token', String.raw`CLOJARS_[A-Za-z0-9]{60}`),
  f('Docker Hub token', String.raw`dckr_pat_[A-Za-z0-9_-]{20,64}`),
  f('npm token', String.raw`npm_[A-Za-z0-9]{36,64}`),
  f('Artifactory token', String.raw`AKCp[A-Za-z0-9]{69}|cmVmdGtu[A-Za-z0-9]{56}`),
  f('Slack token', String.raw`xox[abeoprs]-[A-Za-z0-9-]{10,255}|xapp-\d-[A-Za-z0-9-]{10,255}`),
  // often inside a URL path: `/bot123456789:AA.../sendMessage`
  { kind: 'Telegram bot token', pattern: /(?<!\d)\d{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])/g },
  f('Discord bot token', String.raw`[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}`),
  {
    kind: 'Discord webhook URL',
    pattern:
      /https:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/\d{5,30}\/[A-Za-z0-9_-]{50,80}/g,
  },
  f('Twilio API key', String.raw`SK[0-9a-fA-F]{32}`),
  {
    kind: 'Mailchimp API key',
    pattern: /(?<![A-Za-z0-9_-])[0-9a-f]{32}-us\d{1,2}(?![A-Za-z0-9_-])/y,
    anchor: { literal: '-us', lead: 32 },
  },
  f('Atlassian API token', String.raw`ATATT3[A-Za-z0-9_=-]{150,250}`),
  f('Azure AD client secret', String.raw`[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}`),
  { kind: 'Azure storage account key', pattern: /AccountKey=[A-Za-z0-9+/]{86}==/g, from: 11 },
  f('AWS access key ID', String.raw`(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z2-7]{16}`),
  f('Alibaba Cloud access key ID', String.raw`LTAI[A-Za-z0-9]{20}`),
  f('DigitalOcean token', String.raw`do[opr]_v1_[a-f0-9]{64}`),
  f('Cloudflare origin CA key', String.raw`v1\.0-[a-f0-9]{24}-[a-f0-9]{146}`),
  f('Databricks token', String.raw`dapi[a-f0-9]{32}(?:-\d)?`),
  f('Doppler token', String.raw`dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}`),
  f('HashiCorp Vault token', String.raw`hv[sb]\.[A-Za-z0-9_-]{90,250}`),
  {
    kind: 'Terraform Cloud token',
    pattern: /(?<![A-Za-z0-9_-])[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}(?![A-Za-z0-9_-])/y,
    anchor: { literal: '.atlasv1.', lead: 14 },
  },
  f('Pulumi token', String.raw`pul-[a-f0-9]{40}`),
  f('Heroku API key', String.raw`HRKU-AA[A-Za-z0-9_-]{58}`),
  f('Fly.io token', String.raw`fo1_[A-Za-z0-9_-]{43}|fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3}`),
  f('Grafana token', String.raw`glc_[A-Za-z0-9+/]{32,400}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}`),
  f('Sentry token', String.raw`sntrys_eyJ[A-Za-z0-9+/=_-]{50,}|sntryu_[a-f0-9]{64}`),
  f('New Relic key', String.raw`NR(?:AK|II|JS)-[A-Za-z0-9]{19,32}`),
  f('Dynatrace token', String.raw`dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}`),
  f('Postman API key', String.raw`PMAK-[a-f0-9]{24}-[a-f0-9]{34}`),
  f('Notion token', String.raw`ntn_[0-9]{11}[A-Za-z0-9]{35}`),
  f('PlanetScale token', String.raw`pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_=.-]{32,64}`),
  f('Supabase key', String.raw`sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_-]{31,}`),
  f('Prefect API key', String.raw`pnu_[A-Za-z0-9]{36}`),
  f('ReadMe API key', String.raw`rdme_[a-z0-9]{70}`),
  f('Scalingo token', String.raw`tk-us-[A-Za-z0-9_-]{48}`),
  f('Tailscale key', String.raw`tskey-[a-z]{3,8}-[A-Za-z0-9]{6,}-[A-Za-z0-9]{20,}`),
  f('Typeform token', String.raw`tfp_[A-Za-z0-9_.=-]{59}`),
  f('Shippo token', String.raw`shippo_(?:live|test)_[a-fA-F0-9]{40}`),
  f('Square token', String.raw`sq0(?:atp|csp)-[A-Za-z0-9_-]{22,60}|EAAA[A-Za-z0-9_-]{60}`),
  f('Flutterwave key', String.raw`FLW(?:SECK|PUBK)(?:_TEST)?-[a-h0-9]{32}-X`),
  f('Duffel token', String.raw`duffel_(?:test|live)_[A-Za-z0-9_=-]{43}`),
  f('EasyPost API key', String.raw`EZ[AT]K[A-Za-z0-9]{54}`),
  f('Facebook access token', String.raw`EAA[CM][A-Za-z0-9]{100,}`),
  f('Mapbox secret token', String.raw`sk\.eyJ[A-Za-z0-9_-]{50,}\.[A-Za-z0-9_-]{20,}`),
  f('Age secret key', String.raw`AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}`),
  f('JSON Web Token', String.raw`eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`),
];
