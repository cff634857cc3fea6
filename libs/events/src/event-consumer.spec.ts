import 'reflect-metadata';
import { consumerFilter, serverVersionAtLeast } from './event-consumer';

describe('serverVersionAtLeast', () => {
  it('compares numerically, ignoring suffixes', () => {
    expect(serverVersionAtLeast('2.10.0', [2, 10, 0])).toBe(true);
    expect(serverVersionAtLeast('2.9.10', [2, 10, 0])).toBe(false);
    expect(serverVersionAtLeast('2.11.1-beta.2', [2, 10, 0])).toBe(true);
    expect(serverVersionAtLeast('3.0.0', [2, 10, 0])).toBe(true);
    expect(serverVersionAtLeast(undefined, [2, 10, 0])).toBe(false);
  });
});

describe('consumerFilter', () => {
  it('filters on the one subject of a single type', () => {
    expect(consumerFilter('2.9.10', 'events', ['bot.created'])).toEqual({ filter_subject: 'events.bot.created' });
    expect(consumerFilter('2.9.10', 'events', ['bot.created', 'bot.created'])).toEqual({ filter_subject: 'events.bot.created' });
  });

  it('uses filter_subjects for several types on 2.10+, the whole prefix before', () => {
    expect(consumerFilter('2.10.7', 'events', ['b.x', 'a.y'])).toEqual({ filter_subjects: ['events.a.y', 'events.b.x'] });
    expect(consumerFilter('2.9.10', 'events', ['b.x', 'a.y'])).toEqual({ filter_subject: 'events.>' });
  });
});
