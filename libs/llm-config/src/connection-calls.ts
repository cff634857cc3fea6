import { type EnvSource, env, parseConfig } from '@sa/config';
import { guardedModelFetch, outboundConfig } from '@sa/net-guard';
import { DEFAULT_OLLAMA_BASE_URL } from './model-provider';

/**
 * How the services call a workspace's model connections (issue 32): through the outbound guard
 * (OUTBOUND_*, as crawling and webhook delivery: a private address needs OUTBOUND_ALLOW_CIDRS),
 * with MODEL_CONNECTION_TIMEOUT_MS for the response headers (a streamed answer may take longer)
 * MODEL_CONNECTION_MAX_RETRIES and MODEL_CONNECTION_MAX_BYTES (a response's size). OLLAMA_BASE_URL is where an ollama connection without a base
 * URL goes.
 */
export const connectionCallsConfig = {
  ...outboundConfig,
  connectionTimeoutMs: env.int('MODEL_CONNECTION_TIMEOUT_MS', 60_000, { min: 100, max: 600_000 }),
  connectionMaxRetries: env.int('MODEL_CONNECTION_MAX_RETRIES', 1, { min: 0, max: 10 }),
  // A batch of embeddings as JSON floats is large: 512 texts x 1536 dimensions is about 8 MB.
  connectionMaxBytes: env.int('MODEL_CONNECTION_MAX_BYTES', 64 * 1024 * 1024, { min: 1024, max: 1024 * 1024 * 1024 }),
  ollamaBaseUrl: env.url('OLLAMA_BASE_URL', DEFAULT_OLLAMA_BASE_URL, ['http', 'https']),
};

export interface ConnectionCalls {
  fetch: typeof fetch;
  timeoutMs: number;
  maxRetries: number;
  ollamaBaseUrl: string;
}

/** The fetch, timeout, retries and Ollama default every connection client of a service shares. */
export function connectionCalls(source: EnvSource = process.env): ConnectionCalls {
  const c = parseConfig(connectionCallsConfig, source);
  const policy = { allowedPorts: c.allowedPorts, allowCidrs: c.allowCidrs, maxRedirects: 0, timeoutMs: c.connectionTimeoutMs, maxBytes: c.connectionMaxBytes, userAgent: c.userAgent };
  return { fetch: guardedModelFetch(policy, { headersTimeoutMs: c.connectionTimeoutMs }), timeoutMs: c.connectionTimeoutMs, maxRetries: c.connectionMaxRetries, ollamaBaseUrl: c.ollamaBaseUrl };
}
