import 'reflect-metadata';
import { ChatRequest, ConversationMessagesRequest, ListConversationsRequest } from '@sa/contracts';
import { ValidationFailed } from '@sa/errors';
import { dto } from './dto.pipe';

function issueOf(fn: () => unknown) {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationFailed);
    return (err as ValidationFailed).issues[0];
  }
  throw new Error('expected a ValidationFailed');
}

describe('DtoPipe: what PostgreSQL cannot store is refused wherever it comes from', () => {
  it.each([
    ['body', () => dto(ChatRequest, 'body').transform({ message: 'hi \ud800 there' }), ['body', 'message']],
    ['query', () => dto(ListConversationsRequest, 'query').transform({ q: '\udc00' }), ['query', 'q']],
    ['path', () => dto(ConversationMessagesRequest, 'path').transform({ sessionId: 'a\ud83d' }), ['path', 'sessionId']],
    ['body (NUL)', () => dto(ChatRequest, 'body').transform({ message: 'a\u0000b' }), ['body', 'message']],
  ])('%s', (_where, fn, path) => {
    expect(issueOf(fn)).toEqual({ code: 'invalid_string', path, message: expect.stringContaining('must not contain') });
  });

  it('a body nested 5,000 levels deep is a validation error, not a stack overflow', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 5000; i++) deep = [deep];
    expect(issueOf(() => dto(ChatRequest, 'body').transform({ message: deep }))).toMatchObject({ code: 'too_big' });
  });
});
