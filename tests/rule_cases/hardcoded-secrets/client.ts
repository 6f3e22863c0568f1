import { WebClient } from "@slack/web-api";

// ruleid: hardcoded-secrets
const githubToken = "{{GITHUB_TOKEN}}";
// ok: hardcoded-secrets
const tokenFromEnv = process.env.GITHUB_TOKEN ?? "";

export const slack = new WebClient(
  // ruleid: hardcoded-secrets
  "{{SLACK_TOKEN}}",
);

// ruleid: hardcoded-secrets
const alertsWebhook = "{{SLACK_WEBHOOK}}";

// ruleid: hardcoded-secrets
export const mapsKey = "{{GCP_API_KEY}}";
// ok: hardcoded-secrets
export const mapsKeyFromEnv = process.env.MAPS_API_KEY ?? "";

const oauth = {
  clientId: "web-frontend",
  // ruleid: hardcoded-secrets
  clientSecret: '{{GENERIC_SECRET}}',
};

export { githubToken, tokenFromEnv, alertsWebhook, oauth };
