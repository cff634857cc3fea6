import 'reflect-metadata';
import { IsString } from 'class-validator';
import { BOT_ID_NAME, BotAccess, DEFAULT_BOT_ID_KEY, describeBotAccess } from '@sa/bot-access';
import { DomainError, RateLimited, ValidationFailed } from '@sa/errors';
import { TOOLS, ToolDef } from './catalogue';
import * as input from './inputs';
import { inputSchemas, parseArgs } from './inputs';
import { domainToolError, issueText } from './tool-server';

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

  it('describes inputs with the spec limits, strictly (unknown parameters refused), from the REST contracts', async () => {
    const schemas = await inputSchemas(TOOLS.map((t) => t.input));
    const schema = (name: string) => schemas.get(TOOLS.find((t) => t.name === name)!.input) as any;
    expect(schema('ask_bot').properties.sessionId).toEqual(expect.objectContaining({ minLength: 1, maxLength: 120 }));
    expect(schema('ask_bot').properties.message).toEqual(expect.objectContaining({ type: 'string', minLength: 1, maxLength: 2000, pattern: '\\S' }));
    expect(schema('list_bookings').properties.limit).toEqual(expect.objectContaining({ type: 'integer', minimum: 1, maximum: 200 }));
    expect(schema('list_bookings').properties.status.enum).toEqual(['pending', 'confirmed', 'rejected', 'cancelled']);
    expect(schema('update_booking').properties.rejectionComment).toEqual(expect.objectContaining({ maxLength: 500 }));
    expect(schema('update_booking').required.sort()).toEqual(['action', 'id']);
    expect(schema('add_knowledge').anyOf).toEqual([{ required: ['url'] }, { required: ['text'] }]);
    for (const t of TOOLS) expect([t.name, schema(t.name).type, schema(t.name).additionalProperties]).toEqual([t.name, 'object', false]);
    // The same members as the REST twin's request, with words for agents where they differ.
    expect(Object.keys(schema('ask_bot').properties).sort()).toEqual(['chatbotId', 'language', 'message', 'sessionId']);
    expect(schema('ask_bot').properties.sessionId.description).toMatch(/session_id of an earlier answer/);
    expect(JSON.stringify([...schemas.values()])).not.toMatch(/\$ref|nullable/);
  });

  it('validates arguments with the rules of the REST twin', () => {
    const ask = TOOLS.find((t) => t.name === 'ask_bot')!.input;
    const ok = (args: unknown) => {
      try {
        parseArgs(ask, args, 'ask_bot');
        return true;
      } catch (err) {
        expect(err).toBeInstanceOf(ValidationFailed);
        expect((err as ValidationFailed).message).toBe('Invalid arguments for ask_bot');
        return false;
      }
    };
    expect(ok({ message: '   ' })).toBe(false);
    expect(ok({ message: 'hi', language: 'ja-JP' })).toBe(true);
    expect(ok({ message: 'hi', language: 'not a language' })).toBe(false);
    expect(ok({ message: 'hi', chatbot_id: 'x' })).toBe(false);
    // Lengths count characters, as REST does: 2000 emoji are 4000 UTF-16 units and still fine.
    expect(ok({ message: '😀'.repeat(2000) })).toBe(true);
    expect(ok({ message: '😀'.repeat(2001) })).toBe(false);
    expect(ok(undefined)).toBe(false);
    const list = TOOLS.find((t) => t.name === 'list_bots')!.input;
    expect(() => parseArgs(list, {}, 'list_bots')).not.toThrow();
    expect(() => parseArgs(list, { x: 1 }, 'list_bots')).toThrow(ValidationFailed);
  });
});

// Bot access (libs/bot-access): every tool declares what it does with bots, and a tool that takes
// a bot id must say where. "Takes a bot id" is read from the tool's input schema, as tools/list
// publishes it: an argument named like a bot id (chatbotId, botId …).

/** A contract that takes a bot id under another name, for the probe below. */
class BotIdProbe {
  @IsString() botId!: string;
}

let schemas: Awaited<ReturnType<typeof inputSchemas>>;
beforeAll(async () => {
  schemas = await inputSchemas([...TOOLS.map((t) => t.input), { contract: BotIdProbe }]);
});

/** The arguments of a tool named like a bot id, read from the input schema tools/list publishes. */
function botIdsTaken(tool: ToolDef): string[] {
  const schema = [...schemas.entries()].find(([i]) => i.contract === tool.input.contract)![1];
  return Object.keys(schema.properties ?? {}).filter((name) => BOT_ID_NAME.test(name)).sort();
}

/** What is wrong with a tool's bot-access declaration; [] when nothing. */
function botAccessProblems(tool: ToolDef): string[] {
  const problems: string[] = [];
  const taken = botIdsTaken(tool);
  const at = tool.bots.from ? `${tool.bots.from} ${tool.bots.key ?? DEFAULT_BOT_ID_KEY}` : undefined;
  if (taken.length > 1) problems.push(`takes several bot ids (${taken.join(', ')})`);
  if (taken.length && at !== `argument ${taken[0]}`) problems.push(`takes a bot id (argument ${taken[0]}) but declares ${describeBotAccess(tool.bots)}`);
  if (at && !taken.some((name) => at === `argument ${name}`)) problems.push(`declares a bot id at ${at}, which the tool does not take`);
  return problems;
}

describe('bot access of every tool', () => {
  it.each(TOOLS.map((t) => [t.name, t]))('%s declares its bot access where it takes a bot id', (_name, tool) => {
    expect(botAccessProblems(tool as ToolDef)).toEqual([]);
  });

  it('lists every tool with its declared mode', () => {
    expect(Object.fromEntries(TOOLS.map((t) => [t.name, describeBotAccess(t.bots)]))).toEqual({
      list_bots: 'may-name',
      list_knowledge: 'must-name (argument chatbotId)',
      add_knowledge: 'must-name (argument chatbotId)',
      ask_bot: 'must-name (argument chatbotId)',
      list_conversations: 'may-name (argument chatbotId)',
      get_conversation: 'of-resource',
      list_leads: 'must-name (argument chatbotId)',
      get_analytics: 'must-name (argument chatbotId)',
      list_bookings: 'may-name (argument chatbotId)',
      get_booking: 'of-resource',
      update_booking: 'of-resource',
    });
  });

  it('fails a tool that takes a bot id without saying where, or declares one it does not take', () => {
    const probe = (bots: ToolDef['bots'], schema: ToolDef['input']) => botAccessProblems({ ...TOOLS[0], name: 'probe', bots, input: schema });
    expect(probe({ mode: BotAccess.MayName }, input.ListBookingsInput)).toEqual(['takes a bot id (argument chatbotId) but declares may-name']);
    expect(probe({ mode: BotAccess.MustName, from: 'query' }, input.AskBotInput)).toEqual([
      'takes a bot id (argument chatbotId) but declares must-name (query chatbotId)',
      'declares a bot id at query chatbotId, which the tool does not take',
    ]);
    expect(probe({ mode: BotAccess.MustName, from: 'argument' }, input.NoInput)).toEqual(['declares a bot id at argument chatbotId, which the tool does not take']);
    expect(probe({ mode: BotAccess.OfResource }, { contract: BotIdProbe })).toEqual(['takes a bot id (argument botId) but declares of-resource']);
    expect(probe({ mode: BotAccess.MustName, from: 'argument' }, input.AddKnowledgeInput)).toEqual([]);
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

  it('says each issue once: the member, then what is wrong with it', () => {
    expect(issueText({ code: 'invalid_format', path: ['id'], message: 'id must be a UUID' })).toBe('id: must be a UUID');
    expect(issueText({ code: 'required', path: ['requestedSlot'], message: 'requestedSlot is required when action is reschedule' })).toBe('requestedSlot: required when action is reschedule');
    expect(issueText({ code: 'unrecognized_keys', path: ['chatbot_id'], message: 'chatbot_id is not an accepted field' })).toBe('chatbot_id: not an accepted field');
    expect(issueText({ code: 'too_big', path: [], message: 'payload is nested too deeply' })).toBe('(arguments): payload is nested too deeply');
    expect(issueText({ code: 'too_big', path: ['q'], message: 'must be shorter' })).toBe('q: must be shorter');
  });

  it('lists validation issues by path', () => {
    const r = domainToolError(new DomainError('validation_failed', 'Invalid arguments for ask_bot', { issues: [{ code: 'too_big', path: ['message'], message: 'must be 1 to 2000 characters' }] }));
    expect((r.content[0] as { text: string }).text).toBe('Invalid arguments for ask_bot (400 validation_failed).\nmessage: must be 1 to 2000 characters');
  });
});
