import { modelErrorMessage, modelErrorStatus, modelFailure } from './model-errors';

describe('model errors', () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:11434'), { code: 'ECONNREFUSED' });
  const chain = new Error('Connection error.', { cause: new Error('fetch failed', { cause: refused }) });

  it('gives the message followed by its causes, without repeats, at most four levels', () => {
    expect(modelErrorMessage(chain)).toBe('Connection error. (fetch failed; connect ECONNREFUSED 127.0.0.1:11434)');
    expect(modelErrorMessage(new Error('same', { cause: new Error('same') }))).toBe('same');
    const deep = new Error('1', { cause: new Error('2', { cause: new Error('3', { cause: new Error('4', { cause: new Error('5') }) }) }) });
    expect(modelErrorMessage(deep)).toBe('1 (2; 3; 4)');
  });

  it('reads errors of another realm (duck-typed) and things that are no errors', () => {
    expect(modelErrorMessage({ message: 'from elsewhere', cause: { message: 'below' } })).toBe('from elsewhere (below)');
    expect(modelErrorMessage('plain text')).toBe('plain text');
    expect(modelErrorMessage(undefined)).toBe('unknown error');
    expect(modelErrorMessage(new Error(''))).toBe('unknown error');
  });

  it("finds the HTTP status of the OpenAI SDK's errors and Ollama's", () => {
    expect(modelErrorStatus(Object.assign(new Error('x'), { status: 401 }))).toBe(401);
    expect(modelErrorStatus(Object.assign(new Error('x'), { status_code: 404 }))).toBe(404);
    expect(modelErrorStatus(Object.assign(new Error('x'), { status: '500' }))).toBeUndefined();
    expect(modelErrorStatus(null)).toBeUndefined();
    expect(modelErrorStatus('x')).toBeUndefined();
  });

  it('says which model failed, with the status when there is one', () => {
    expect(modelFailure('openai (model m at http://x/v1)', Object.assign(new Error('500 model crashed'), { status: 500 }))).toBe('openai (model m at http://x/v1) failed with HTTP 500: 500 model crashed');
    expect(modelFailure('ollama (model m at http://x)', chain)).toBe('ollama (model m at http://x) failed: Connection error. (fetch failed; connect ECONNREFUSED 127.0.0.1:11434)');
  });
});
