import { ConfigError } from '@sa/config';
import { DEFAULT_OUTBOUND_POLICY, outboundPolicy, outboundPolicyFromEnv } from './outbound-policy';

describe('outboundPolicyFromEnv', () => {
  it('has safe defaults', () => {
    expect(outboundPolicyFromEnv({})).toEqual({
      allowedPorts: [80, 443],
      allowCidrs: [],
      maxRedirects: 5,
      timeoutMs: 10000,
      maxBytes: 5 * 1024 * 1024,
      userAgent: DEFAULT_OUTBOUND_POLICY.userAgent,
    });
  });

  it('reads every variable', () => {
    const policy = outboundPolicyFromEnv({
      OUTBOUND_ALLOWED_PORTS: '80, 443,8080',
      OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32, fd00::/8,10.1.2.3',
      OUTBOUND_MAX_REDIRECTS: '2',
      OUTBOUND_TIMEOUT_MS: '1500',
      OUTBOUND_MAX_BYTES: '1024',
      OUTBOUND_USER_AGENT: 'TestBot/1',
    });
    expect(policy).toEqual({
      allowedPorts: [80, 443, 8080],
      allowCidrs: ['127.0.0.1/32', 'fd00::/8', '10.1.2.3'],
      maxRedirects: 2,
      timeoutMs: 1500,
      maxBytes: 1024,
      userAgent: 'TestBot/1',
    });
  });

  it('reports every bad value at once', () => {
    let error: unknown;
    try {
      outboundPolicyFromEnv({ OUTBOUND_ALLOWED_PORTS: '80,http,70000', OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32,localhost', OUTBOUND_MAX_REDIRECTS: '-1', OUTBOUND_TIMEOUT_MS: 'soon' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toEqual([
      expect.stringContaining('OUTBOUND_ALLOWED_PORTS must be a comma-separated list of ports 1-65535 (got "http")'),
      expect.stringContaining('(got "70000")'),
      expect.stringContaining('OUTBOUND_ALLOW_CIDRS must be a comma-separated list of CIDRs such as 127.0.0.1/32 or fd00::/8 (got "localhost")'),
      'OUTBOUND_MAX_REDIRECTS must be at least 0 (got -1)',
      'OUTBOUND_TIMEOUT_MS must be an integer (got "soon")',
    ]);
  });
});

describe('outboundPolicy', () => {
  it('overrides the defaults without sharing their arrays', () => {
    const a = outboundPolicy({ maxBytes: 10 });
    expect(a.maxBytes).toBe(10);
    expect(a.allowedPorts).toEqual([80, 443]);
    a.allowedPorts.push(22);
    expect(DEFAULT_OUTBOUND_POLICY.allowedPorts).toEqual([80, 443]);
  });
});
