import { z } from 'zod';
import { parseCommandLine } from '#settings/command-line.js';
import { startConsentApp } from '../consent-app/app.js';

/**
 * `npm run consent-app`: the example storefront consent page beside `npm start` (README, "Agents
 * that connect"). It needs a storefront credential of the space: its id and secret.
 */
parseCommandLine(
  `Usage: npm run consent-app
The example storefront consent page, beside npm start. Settings, from the environment:
  CONSENT_APP_CLIENT_ID, CONSENT_APP_CLIENT_SECRET  a storefront credential of the space (required)
  TOKEN_AUTHORITY_URL   the service (default http://localhost:8080)
  CONSENT_APP_AUDIENCE  its private tokens' audience (default storefront.api.local)
  CONSENT_APP_PORT      where it listens (default 8090)`,
  {},
);
const settings = z
  .object({
    TOKEN_AUTHORITY_URL: z.string().url().default('http://localhost:8080'),
    CONSENT_APP_CLIENT_ID: z.string().min(1, 'the storefront credential’s client_id'),
    CONSENT_APP_CLIENT_SECRET: z.string().min(1, 'the storefront credential’s client_secret'),
    CONSENT_APP_AUDIENCE: z.string().min(1).default('storefront.api.local'),
    CONSENT_APP_PORT: z.coerce.number().int().min(0).max(65535).default(8090),
  })
  .safeParse(process.env);
if (!settings.success) {
  for (const issue of settings.error.issues)
    console.error(`${issue.path.join('.')}: ${issue.message}`);
  process.exit(2);
}
const env = settings.data;
const app = await startConsentApp({
  serviceUrl: env.TOKEN_AUTHORITY_URL,
  clientId: env.CONSENT_APP_CLIENT_ID,
  clientSecret: env.CONSENT_APP_CLIENT_SECRET,
  audience: env.CONSENT_APP_AUDIENCE,
  port: env.CONSENT_APP_PORT,
});
console.log(`consent app at ${app.url}/consent (set it as the space's authorization app)`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void app.close().then(() => process.exit(0)));
}
