/** The kinds of secret the `secrets` check reports, with what each one is. */
export const SECRET_KINDS = {
  AWS_ACCESS_KEY_ID: "AWS access key id (AKIA…, ASIA… and the other IAM unique-id prefixes).",
  AWS_SECRET_ACCESS_KEY: "AWS secret access key: 40 base64 characters assigned to a name that says secret access key.",
  AZURE_STORAGE_KEY: "Azure storage account key (AccountKey=… in a connection string).",
  GITHUB_TOKEN: "GitHub token: ghp_, gho_, ghu_, ghs_, ghr_ or a fine-grained github_pat_.",
  GITLAB_TOKEN: "GitLab token: glpat- (personal), glptt- (pipeline trigger), gldt- (deploy), glrt- (runner).",
  OPENAI_API_KEY: "OpenAI-style key: sk-proj-, sk-svcacct-, sk-admin-, or a legacy sk- key.",
  ANTHROPIC_API_KEY: "Anthropic key: sk-ant-api…- or sk-ant-admin…-.",
  SLACK_TOKEN: "Slack token: xoxb-, xoxa-, xoxp-, xoxr-, xoxs- or an app-level xapp- token.",
  SLACK_WEBHOOK: "Slack incoming-webhook or workflow URL (hooks.slack.com).",
  STRIPE_SECRET_KEY: "Stripe secret or restricted key: sk_live_, sk_test_, rk_live_, rk_test_.",
  STRIPE_PUBLISHABLE_KEY:
    "Stripe publishable key (pk_live_, pk_test_): meant for browsers, so not secret by itself; leave it out with `kinds`.",
  GOOGLE_API_KEY: "Google API key (AIza… and 35 more characters).",
  PRIVATE_KEY: "PEM private key block (RSA, EC, DSA, OpenSSH, PKCS #8, encrypted, PGP), from BEGIN to END.",
  JWT: "JSON Web Token whose header decodes to JSON naming an `alg`.",
  HIGH_ENTROPY_STRING: "A token-like string of high Shannon entropy that no specific rule names (see the notes).",
} as const;

/** A kind of secret. */
export type SecretKind = keyof typeof SECRET_KINDS;

/** Every kind, in the order the docs list them. */
export const ALL_SECRET_KINDS = Object.keys(SECRET_KINDS) as SecretKind[];
