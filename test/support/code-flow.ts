import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { startConsentApp, type ConsentApp } from '../../tools/consent-app/app.js';
import { delegationParties } from './delegation.js';
import { startLocalDocuments, type LocalDocuments } from './local-documents.js';
import { TEST_SCOPE_CATALOG } from './scope-catalog.js';
import { adminCall, AUDIENCE, startTestService, type TestService } from './test-service.js';

/** A port free now (for a service whose issuer must name where a browser reaches it). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** A space where an agent's metadata document may start the code flow, and its consent app. */
export interface CodeFlowSpace {
  readonly service: TestService;
  readonly docs: LocalDocuments;
  /** The agent's client id: its metadata document (a public client, loopback redirect URIs). */
  readonly agent: string;
  readonly app: ConsentApp;
  readonly parties: ReturnType<typeof delegationParties>;
}

/**
 * The service at the address its issuer names (a browser follows its redirects), an agent's
 * document, the example consent app as the storefront, and the space set up for them: the agent's
 * domain allowed, the consent app its authorization app, and `ownKeys` for a discoverable issuer.
 */
export async function codeFlowSpace(
  space: string,
  options: { readonly agentName: string; readonly scopes: string[]; readonly ownKeys?: boolean },
): Promise<CodeFlowSpace> {
  const port = await freePort();
  const service = await startTestService({
    PORT: String(port),
    TOKEN_ISSUER: `http://127.0.0.1:${port}`,
    SCOPE_CATALOG: JSON.stringify(TEST_SCOPE_CATALOG),
  });
  const docs = await startLocalDocuments();
  const agent = `https://localhost:${docs.port}/agents/browser.json`;
  docs.serve('/agents/browser.json', {
    body: {
      client_id: agent,
      client_name: options.agentName,
      token_endpoint_auth_method: 'none',
      redirect_uris: ['http://127.0.0.1/callback'],
    },
  });
  const parties = delegationParties(() => service, space);
  const storefront = await parties.credential(options.scopes);
  const app = await startConsentApp({
    serviceUrl: service.baseUrl,
    clientId: storefront.client_id,
    clientSecret: storefront.client_secret,
    audience: AUDIENCE,
  });
  const calls: Array<readonly [string, Record<string, unknown> | undefined]> = [
    ...(options.ownKeys ? [['/v1/space/signing-keys', undefined] as const] : []),
    ['/v1/metadata-client-domains', { domain: 'localhost', scopes: options.scopes }],
    ['/v1/authorization-app', { interaction_url: `${app.url}/consent` }],
  ];
  for (const [path, body] of calls) {
    const response = await adminCall(service, space, 'POST', path, body);
    expect(response.status, await response.clone().text()).toBeLessThan(300);
  }
  return { service, docs, agent, app, parties };
}
