import { MAX_STORED_MESSAGES, STORED_SESSION_IDLE_MS, loadSession, saveSession, storageKey } from './storage';

/** A Storage as browsers have it, in memory (the module only uses getItem and setItem). */
class MemoryStorage {
  readonly items = new Map<string, string>();
  getItem(k: string) {
    return this.items.get(k) ?? null;
  }
  setItem(k: string, v: string) {
    this.items.set(k, String(v));
  }
}

describe('widget session storage', () => {
  it('keeps the session id and the last 50 messages under sa-widget:<botId>', () => {
    const s = new MemoryStorage();
    const messages = Array.from({ length: 60 }, (_, i) => ({ role: (i % 2 ? 'assistant' : 'user') as 'user' | 'assistant', text: `m${i}` }));
    saveSession(s, 'bot-1', { sessionId: 'sess', messages });
    expect([...s.items.keys()]).toEqual([storageKey('bot-1')]);
    expect(storageKey('bot-1')).toBe('sa-widget:bot-1');
    const back = loadSession(s, 'bot-1');
    expect(back.sessionId).toBe('sess');
    expect(back.messages).toHaveLength(MAX_STORED_MESSAGES);
    expect(back.messages[0]!.text).toBe('m10');
    expect(typeof back.updatedAt).toBe('string');
    expect(loadSession(s, 'bot-2').sessionId).toBeNull();
  });

  it('forgets a conversation idle for a day or more, or stored without a valid time', () => {
    const s = new MemoryStorage();
    const at = Date.parse('2026-11-23T10:00:00Z');
    s.setItem('sa-widget:b', JSON.stringify({ sessionId: 'sess', messages: [{ role: 'user', text: 'hi' }], updatedAt: new Date(at).toISOString() }));
    expect(loadSession(s, 'b', at + STORED_SESSION_IDLE_MS - 1000)).toEqual(expect.objectContaining({ sessionId: 'sess', messages: [{ role: 'user', text: 'hi' }] }));
    expect(loadSession(s, 'b', at + STORED_SESSION_IDLE_MS)).toEqual(expect.objectContaining({ sessionId: null, messages: [] }));
    for (const updatedAt of [undefined, 'yesterday', 42]) {
      s.setItem('sa-widget:b', JSON.stringify({ sessionId: 'sess', messages: [{ role: 'user', text: 'hi' }], updatedAt }));
      expect(loadSession(s, 'b', at)).toEqual(expect.objectContaining({ sessionId: null, messages: [] }));
    }
  });

  it('starts empty on unreadable or hostile content, and when storage throws', () => {
    const s = new MemoryStorage();
    s.setItem('sa-widget:b', '{not json');
    expect(loadSession(s, 'b')).toEqual(expect.objectContaining({ sessionId: null, messages: [] }));
    s.setItem('sa-widget:b', JSON.stringify({ sessionId: 5, messages: [{ role: 'system', text: 'x' }, { role: 'user', text: 3 }, null, { role: 'user', text: 'ok' }], updatedAt: new Date().toISOString() }));
    expect(loadSession(s, 'b')).toEqual(expect.objectContaining({ sessionId: null, messages: [{ role: 'user', text: 'ok' }] }));
    const broken = {
      getItem: () => {
        throw new Error('SecurityError');
      },
      setItem: () => {
        throw new Error('QuotaExceededError');
      },
    };
    expect(loadSession(broken, 'b').messages).toEqual([]);
    expect(() => saveSession(broken, 'b', { sessionId: 'x', messages: [] })).not.toThrow();
  });

  it('keeps an answer\'s confirm card across a reload (issue 34), and drops a card that does not read as one', () => {
    const s = new MemoryStorage();
    const card = { callId: 'call_1', label: 'Cancel order A-1001', input: { order_id: 'A-1001' } };
    saveSession(s, 'b', { sessionId: 'sess', messages: [{ role: 'assistant', text: '', id: 'm-1', action: card }, { role: 'assistant', text: 'ok', action: { ...card, decided: 'cancelled' } }] });
    expect(loadSession(s, 'b').messages).toEqual([{ role: 'assistant', text: '', id: 'm-1', action: card }, { role: 'assistant', text: 'ok', action: { ...card, decided: 'cancelled' } }]);
    const bad = [{ ...card, decided: 'maybe' }, { ...card, input: ['x'] }, { ...card, callId: 3 }, 'card'];
    s.setItem('sa-widget:b', JSON.stringify({ sessionId: 'sess', messages: bad.map((action) => ({ role: 'assistant', text: 'a', action })), updatedAt: new Date().toISOString() }));
    expect(loadSession(s, 'b').messages.map((m) => m.action)).toEqual([undefined, undefined, undefined, undefined]);
    expect(loadSession(s, 'b').messages.map((m) => m.text)).toEqual(['a', 'a', 'a', 'a']);
  });
});
