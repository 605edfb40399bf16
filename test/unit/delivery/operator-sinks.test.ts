import { describe, expect, it } from 'vitest';
import { operatorSinkRefusals, operatorSinksSchema } from '../../../src/delivery/operator-sinks.js';

const rules = { production: true, allowHttpHosts: [], ownPorts: [8080] };
const sinks = operatorSinksSchema.parse([
  { kind: 'syslog', id: 'siem', host: 'siem.example', port: 6514, tls: true },
  { kind: 'syslog', id: 'meta', host: '169.254.169.254', port: 514, tls: true },
  { kind: 'syslog', id: 'plain', host: 'logs.example', port: 514, tls: false },
]);

describe("the operator's AUDIT_SINKS", () => {
  it("are held to a space's sinks' target rules, each refusal naming its index", () => {
    const refusals = operatorSinkRefusals(sinks, rules);
    expect(refusals).toHaveLength(2);
    expect(refusals[0]).toMatch(/^AUDIT_SINKS\[1\]: .*metadata/);
    expect(refusals[1]).toMatch(/^AUDIT_SINKS\[2\]: in production a sink must use TLS/);
    expect(operatorSinkRefusals(sinks.slice(0, 1), rules)).toEqual([]);
  });
});
