import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { flushTraces } from '../../../src/observability/trace-export.js';
import {
  startOtlpReceiver,
  type OtlpReceiver,
  type ReceivedSpan,
} from '../../support/otlp-receiver.js';
import {
  AUDIENCE,
  createCredentialVia,
  privateTokenVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

const SPACE = 'space-traces';
const SERVER = 2; // OTLP's SPAN_KIND_SERVER

let receiver: OtlpReceiver;
let untrusting: TestService;
let trusting: TestService;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_SERVICE_NAME: 'ta-test' };
  // The same deployment twice: one trusting no caller's trace context, one trusting loopback.
  untrusting = await startTestService({ ...otel, OTEL_TRUSTED_TRACE_SOURCES: '10.9.0.0/16' });
  trusting = await startTestService(
    { ...otel, OTEL_TRUSTED_TRACE_SOURCES: '127.0.0.1/32,::1' },
    undefined,
    { database: untrusting.database, dataDir: untrusting.dataDir },
  );
});
afterAll(() => receiver.close());

const traceparentOf = () => {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, header: `00-${traceId}-${spanId}-01` };
};

async function issue(
  service: TestService,
  credential: { client_id: string; client_secret: string },
  traceparent: string,
): Promise<string> {
  const answer = await service.post(
    '/v1/credential/token',
    { ...credential, audience: AUDIENCE, grant_type: 'client_credentials' },
    { traceparent },
  );
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { access_token: string }).access_token;
}

async function received(): Promise<ReceivedSpan[]> {
  await flushTraces();
  return receiver.spans();
}

const serverSpanOf = (spans: ReceivedSpan[], traceId: string) =>
  spans.find((span) => span.kind === SERVER && span.traceId === traceId);

describe('traces', () => {
  it('one private-token issuance: server span, then decision, signature and append, the database beneath; no secret sent', async () => {
    const credential = await createCredentialVia(untrusting, SPACE);
    const sent = traceparentOf();
    const token = await issue(untrusting, credential, sent.header);
    const spans = await received();
    const append = spans.find(
      (span) => span.name === 'append' && span.attributes['event.type'] === 'private-token-issued',
    );
    expect(append).toBeDefined();
    const trace = spans.filter((span) => span.traceId === append!.traceId);
    const server = serverSpanOf(trace, append!.traceId)!;
    expect(server.serviceName).toBe('ta-test');
    expect(server.name).toBe('POST /v1/credential/token');
    expect(server.parentSpanId).toBe('');
    expect(server.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/v1/credential/token',
      'http.response.status_code': 200,
      'url.path': '/v1/credential/token',
      'oauth.grant_type': 'client_credentials',
    });
    const child = (name: string) =>
      trace.find((span) => span.name === name && span.parentSpanId === server.spanId);
    expect(child('decide')?.attributes).toMatchObject({
      'oauth.grant_type': 'client_credentials',
      'oauth.client_id': credential.client_id,
      'tenant.space_id': SPACE,
    });
    const kid = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).kid;
    expect(child('sign')?.attributes).toEqual({ 'signer.kind': 'local', kid });
    expect(child('append')?.attributes).toMatchObject({
      'event.type': 'private-token-issued',
      'tenant.space_id': SPACE,
    });
    expect(append!.attributes['event.id']).toMatch(/^[0-9a-f-]{36}$/);
    // Decision before signature before append, as the handler runs them (spans arrive as they end).
    const order = trace.filter((span) => span.parentSpanId === server.spanId).map((s) => s.name);
    expect(order.filter((name) => ['decide', 'sign', 'append'].includes(name))).toEqual([
      'decide',
      'sign',
      'append',
    ]);
    // The database's spans (instrumentation-pg) are in the same trace.
    expect(trace.some((span) => span.attributes['db.system.name'] === 'postgresql')).toBe(true);
    // Nothing that authenticates or is authenticated with is in what was exported.
    const exported = Buffer.concat(receiver.bodies);
    for (const secret of [credential.client_secret, token, token.split('.')[2]!]) {
      expect(exported.includes(secret)).toBe(false);
    }
  });

  it('a public-token issuance: the customer id only hashed, the private and public tokens nowhere', async () => {
    const credential = await createCredentialVia(untrusting, `${SPACE}-public`);
    const privateToken = await privateTokenVia(untrusting, credential);
    const customer = `customer-${randomBytes(6).toString('hex')}`;
    const answer = await untrusting.post(
      '/v1/issue',
      { customer_id: customer, segment_id: 'segment-1' },
      { authorization: `Bearer ${privateToken}`, 'x-service-space-id': `${SPACE}-public` },
    );
    expect(answer.status).toBe(200);
    const publicToken = ((await answer.json()) as { token: string }).token;
    const spans = await received();
    const append = spans.find((span) => span.attributes['event.type'] === 'public-token-issued');
    const decide = spans.find((span) => span.name === 'decide' && span.traceId === append?.traceId);
    expect(decide?.attributes['oauth.customer_id']).toMatch(/^[0-9a-f]{32}$/);
    const exported = Buffer.concat(receiver.bodies);
    for (const secret of [customer, privateToken, publicToken, credential.client_secret]) {
      expect(exported.includes(secret)).toBe(false);
    }
  });

  it("an untrusted caller's traceparent starts a new trace, linked; a trusted one's is continued", async () => {
    const credential = await createCredentialVia(untrusting, `${SPACE}-trust`);
    const outsider = traceparentOf();
    await issue(untrusting, credential, outsider.header);
    const insider = traceparentOf();
    await issue(trusting, credential, insider.header);
    const spans = await received();
    expect(spans.some((span) => span.traceId === outsider.traceId)).toBe(false);
    const linked = spans.find(
      (span) => span.kind === SERVER && span.links.some((l) => l.traceId === outsider.traceId),
    );
    expect(linked?.links).toEqual([{ traceId: outsider.traceId, spanId: outsider.spanId }]);
    const continued = serverSpanOf(spans, insider.traceId);
    expect(continued?.parentSpanId).toBe(insider.spanId);
    expect(continued?.links).toEqual([]);
  });
});
