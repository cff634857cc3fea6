import { createSseParser, readChatFrame } from './sse';

describe('createSseParser', () => {
  const frames = (chunks: string[]) => {
    const out: string[] = [];
    const p = createSseParser((d) => out.push(d));
    chunks.forEach((c) => p.push(c));
    p.end();
    return out;
  };

  it('gives each complete frame, however the chunks split it', () => {
    const text = 'data: {"a":1}\n\ndata: {"b":2}\n\n';
    expect(frames([text])).toEqual(['{"a":1}', '{"b":2}']);
    for (let cut = 1; cut < text.length; cut++) expect(frames([text.slice(0, cut), text.slice(cut)])).toEqual(['{"a":1}', '{"b":2}']);
    expect(frames(text.split(''))).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('joins multi-line data, accepts CRLF and "data:" without a space, ignores comments and other fields', () => {
    expect(frames([': ping\n\nevent: x\ndata: one\ndata:two\r\n\r\n'])).toEqual(['one\ntwo']);
  });

  it('drops a last frame without its blank line (the stream was cut off)', () => {
    expect(frames(['data: {"a":1}\n\ndata: {"b"'])).toEqual(['{"a":1}']);
  });
});

describe('readChatFrame', () => {
  it('reads content frames', () => {
    expect(readChatFrame('{"choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}')).toEqual({ content: 'Hel', finish: null });
  });

  it("reads the widget's last frame: message_id and source_urls (strings only)", () => {
    const f = readChatFrame('{"choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}],"message_id":"m-1","source_urls":["https://a.example/x",7]}');
    expect(f).toEqual({ content: '', finish: 'stop', messageId: 'm-1', sourceUrls: ['https://a.example/x'] });
  });

  it('reads an error end with its code', () => {
    const f = readChatFrame('{"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}],"error":{"code":"internal_error","message":"x"}}');
    expect(f).toEqual({ content: '', finish: 'error', errorCode: 'internal_error' });
  });

  it('reads the end of a turn a person holds: who has it (strings only)', () => {
    expect(readChatFrame('{"choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}],"handoff":{"state":"taken","taken_by":"Ada"}}')).toEqual({ content: '', finish: 'stop', heldBy: 'Ada' });
    expect(readChatFrame('{"choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}],"handoff":{"taken_by":7}}')).toEqual({ content: '', finish: 'stop' });
  });

  it('reads an action frame (issue 34): the spec\'s empty delta and the additive `action`', () => {
    const running = '{"choices":[{"index":0,"delta":{"content":""},"finish_reason":null}],"action":{"call_id":"call_1","name":"order_status","label":"Checking your order…","state":"running"}}';
    expect(readChatFrame(running)).toEqual({ content: '', finish: null, action: { callId: 'call_1', name: 'order_status', label: 'Checking your order…', state: 'running' } });
    const waiting = '{"choices":[{"index":0,"delta":{"content":""},"finish_reason":null}],"action":{"call_id":"call_2","name":"cancel_order","label":"Cancel order A-1001","state":"awaiting_confirmation","input":{"order_id":"A-1001"}}}';
    expect(readChatFrame(waiting)?.action).toEqual({ callId: 'call_2', name: 'cancel_order', label: 'Cancel order A-1001', state: 'awaiting_confirmation', input: { order_id: 'A-1001' } });
    for (const state of ['done', 'failed', 'refused', 'cancelled']) {
      expect(readChatFrame(`{"choices":[{"delta":{"content":""}}],"action":{"call_id":"c","name":"n","label":"l","state":"${state}"}}`)?.action?.state).toBe(state);
    }
  });

  it('drops an action member that does not read as one, and keeps the rest of the frame', () => {
    const bad = [
      '{"call_id":"c","name":"n","label":"l","state":"exploded"}',
      '{"call_id":"","name":"n","label":"l","state":"running"}',
      '{"call_id":7,"name":"n","label":"l","state":"running"}',
      '{"call_id":"c","name":"n","state":"running"}',
      '"running"',
      '[]',
    ];
    for (const action of bad) expect(readChatFrame(`{"choices":[{"delta":{"content":"Hi"}}],"action":${action}}`)).toEqual({ content: 'Hi', finish: null });
    // An input that is not an object is left out; the action stays.
    expect(readChatFrame('{"choices":[{"delta":{"content":""}}],"action":{"call_id":"c","name":"n","label":"l","state":"awaiting_confirmation","input":["x"]}}')?.action).toEqual({ callId: 'c', name: 'n', label: 'l', state: 'awaiting_confirmation' });
  });

  it('ignores what is not a JSON object', () => {
    expect(readChatFrame('[DONE]')).toBeUndefined();
    expect(readChatFrame('null')).toBeUndefined();
  });
});
