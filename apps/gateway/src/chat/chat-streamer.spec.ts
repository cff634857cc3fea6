import { headerValue, sseFinalFrame, sseFrame } from './chat-streamer';

describe('chat stream frames', () => {
  it('content frames: choices[0].delta.content with finish_reason null', () => {
    expect(sseFrame('Hi "there"')).toBe('data: {"choices":[{"index":0,"delta":{"content":"Hi \\"there\\""},"finish_reason":null}]}\n\n');
  });

  it('the last frame of a complete answer: empty content, finish_reason "stop", no [DONE]', () => {
    expect(sseFinalFrame()).toBe('data: {"choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}]}\n\n');
  });

  it("the widget's last frame also names the stored message and its sources (issue 18)", () => {
    expect(sseFinalFrame(undefined, { message_id: 'm-1', source_urls: ['https://docs.example.com/a'] })).toBe(
      'data: {"choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}],"message_id":"m-1","source_urls":["https://docs.example.com/a"]}\n\n',
    );
    // A failure wins: a broken-off answer names no message.
    expect(JSON.parse(sseFinalFrame({ code: 'internal_error', message: 'x' }, { message_id: 'm-1', source_urls: [] }).slice(6))).not.toHaveProperty('message_id');
  });

  it('the last frame of an answer that broke off: finish_reason "error" and a top-level error {code, message}', () => {
    expect(JSON.parse(sseFinalFrame({ code: 'internal_error', message: 'The answer was not saved' }).slice(6))).toEqual({
      choices: [{ index: 0, delta: { content: '' }, finish_reason: 'error' }],
      error: { code: 'internal_error', message: 'The answer was not saved' },
    });
  });

  it('headerValue keeps printable ASCII and percent-encodes the rest', () => {
    expect(headerValue('session-1')).toBe('session-1');
    expect(headerValue('café')).toBe('caf%C3%A9');
  });
});
