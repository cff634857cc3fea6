import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import type { ModelConnectionSpec } from '@sa/contracts';
import { SecretBox } from '@sa/secret-box';
import { BotModels } from './bot-models';
import { createChatModelFromConfig, describeChatModel } from './chat-model';
import { loadChatModelConfig } from './chat-model.config';

describe('BotModels: the model each bot answers through', () => {
  const box = new SecretBox(randomBytes(32));
  const calls = { fetch: (() => Promise.reject(new Error('no calls here'))) as typeof fetch, timeoutMs: 1000, maxRetries: 0, ollamaBaseUrl: 'http://127.0.0.1:11434' };
  const config = loadChatModelConfig({ CHAT_MODEL_PROVIDER: 'openai', CHAT_MODEL_BASE_URL: 'http://127.0.0.1:9/v1', CHAT_MODEL_NAME: 'house-model' });
  const installation = createChatModelFromConfig(config);
  const connection = (over: Partial<ModelConnectionSpec> = {}): ModelConnectionSpec => ({
    id: '0b6f3c9e-6a55-4d0c-9a43-8b2a51c9d1f0',
    kind: 'anthropic',
    base_url: 'http://127.0.0.1:9',
    model: 'claude-haiku-4-5',
    api_key_sealed: box.seal('sk-ant-secret'),
    updated_at: '2026-11-29T00:00:00.000Z',
    ...over,
  });

  it("uses the installation's model for a bot without a choice, and the bot's connection otherwise, opened from its seal", () => {
    const models = new BotModels(installation, config, box, calls);
    expect(models.for(null)).toBe(installation);
    expect(models.for({ model: { connection: null, temperature: null } })).toBe(installation);
    const own = models.for({ model: { connection: connection(), temperature: 0.7 } })!;
    expect(describeChatModel(own)).toBe('anthropic (model claude-haiku-4-5 at http://127.0.0.1:9)');
    expect((own as unknown as { apiKey: string }).apiKey).toBe('sk-ant-secret');
    expect((own as unknown as { temperature: number }).temperature).toBe(0.7);
  });

  it('builds a model once per connection version and temperature', () => {
    const models = new BotModels(installation, config, box, calls);
    const a = models.for({ model: { connection: connection(), temperature: null } });
    expect(models.for({ model: { connection: connection(), temperature: null } })).toBe(a);
    expect(models.for({ model: { connection: connection({ updated_at: '2026-11-29T01:00:00.000Z' }), temperature: null } })).not.toBe(a);
    const warm = models.for({ model: { connection: null, temperature: 1.5 } })!;
    expect(warm).not.toBe(installation);
    expect(describeChatModel(warm)).toBe('openai (model house-model at http://127.0.0.1:9/v1)');
    expect((warm as unknown as { temperature: number }).temperature).toBe(1.5);
  });

  it('keeps extractive for a temperature without any model', () => {
    const extractive = loadChatModelConfig({});
    expect(new BotModels(null, extractive, box, calls).for({ model: { connection: null, temperature: 1 } })).toBeNull();
  });
});
