import 'reflect-metadata';
import { z } from 'zod';
import { DomainError, RateLimited } from '@sa/errors';
import { TOOLS } from './catalogue';
import { domainToolError } from './tool-server';

describe('the tool catalogue (spec part 1)', () => {
  it('has the eleven tools, each with the scope of its REST twin (spec part 4)', () => {
    expect(Object.fromEntries(TOOLS.map((t) => [t.name, t.scope]))).toEqual({
      list_bots: 'bots:read',
      list_knowledge: 'kb:read',
      add_knowledge: 'kb:write',
      ask_bot: 'chat:invoke',
      list_conversations: 'conversations:read',
      get_conversation: 'conversations:read',
      list_leads: 'leads:read',
      get_analytics: 'analytics:read',
      list_bookings: 'bookings:read',
      get_booking: 'bookings:read',
      update_booking: 'bookings:write',
    });
  });

  it('marks exactly the reading tools read-only', () => {
    const writers = TOOLS.filter((t) => !t.annotations.readOnlyHint).map((t) => t.name);
    expect(writers.sort()).toEqual(['add_knowledge', 'ask_bot', 'update_booking']);
  });

  it('describes inputs with the spec limits, strictly (unknown parameters refused)', () => {
    const schema = (name: string) => z.toJSONSchema(TOOLS.find((t) => t.name === name)!.input, { io: 'input' }) as any;
    expect(schema('ask_bot').properties.sessionId).toEqual(expect.objectContaining({ minLength: 1, maxLength: 120 }));
    expect(schema('list_bookings').properties.limit).toEqual(expect.objectContaining({ type: 'integer', minimum: 1, maximum: 200 }));
    expect(schema('list_bookings').properties.status.enum).toEqual(['pending', 'confirmed', 'rejected', 'cancelled']);
    expect(schema('update_booking').properties.rejectionComment).toEqual(expect.objectContaining({ maxLength: 500 }));
    for (const t of TOOLS) expect([t.name, schema(t.name).additionalProperties]).toEqual([t.name, false]);
    const ask = TOOLS.find((t) => t.name === 'ask_bot')!.input;
    expect(ask.safeParse({ message: '   ' }).success).toBe(false);
    expect(ask.safeParse({ message: 'hi', language: 'ja-JP' }).success).toBe(true);
    expect(ask.safeParse({ message: 'hi', language: 'not a language' }).success).toBe(false);
    expect(ask.safeParse({ message: 'hi', chatbot_id: 'x' }).success).toBe(false);
  });
});

describe('domainToolError', () => {
  it('reports the message, the REST status and code, the details and a hint', () => {
    const r = domainToolError(new DomainError('bot_name_taken', 'A bot named "Helper" already exists', { suggested_name: 'Helper 2' }));
    expect(r.isError).toBe(true);
    expect(r.content).toEqual([{ type: 'text', text: 'A bot named "Helper" already exists (409 bot_name_taken).\nsuggested_name: Helper 2' }]);
    expect(r._meta).toEqual({ 'support-agent/error': { status: 409, code: 'bot_name_taken', message: 'A bot named "Helper" already exists', suggested_name: 'Helper 2' } });
    expect((domainToolError(new RateLimited(7)).content[0] as { text: string }).text).toMatch(/429 rate_limited[\s\S]*retry_after: 7[\s\S]*Wait and try again/);
  });

  it('lists validation issues by path', () => {
    const r = domainToolError(new DomainError('validation_failed', 'Invalid arguments for ask_bot', { issues: [{ code: 'too_big', path: ['message'], message: 'must be 1 to 2000 characters' }] }));
    expect((r.content[0] as { text: string }).text).toBe('Invalid arguments for ask_bot (400 validation_failed).\nmessage: must be 1 to 2000 characters');
  });
});
