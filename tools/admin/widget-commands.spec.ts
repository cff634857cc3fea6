import 'reflect-metadata';
import { UsageError, parseArgs } from './args';
import { WIDGET_BOOLEAN_FLAGS, widgetChange } from './widget-commands';

const change = (...argv: string[]) => widgetChange(parseArgs(argv, new Set(WIDGET_BOOLEAN_FLAGS)));

describe('widget set options', () => {
  it('turn into the change of bots.widget.update', () => {
    expect(change('--origins', 'https://a.example, https://b.example', '--color', '#112233', '--position', 'left', '--greeting', 'Hi there')).toEqual({
      allowed_origins: ['https://a.example', 'https://b.example'],
      theme: { color: '#112233', position: 'left', greeting: 'Hi there' },
    });
    expect(change('--no-origins')).toEqual({ allowed_origins: [] });
    expect(change('--no-greeting', '--launcher-text', 'Ask us')).toEqual({ theme: { greeting: null, launcher_text: 'Ask us' } });
    expect(change('--no-launcher-text')).toEqual({ theme: { launcher_text: null } });
  });

  it('refuse nothing to change, a bad position and contradictory options', () => {
    expect(() => change()).toThrow(UsageError);
    expect(() => change('--position', 'top')).toThrow(/left or right/);
    expect(() => change('--origins', 'https://a.example', '--no-origins')).toThrow(UsageError);
    expect(() => change('--greeting', 'x', '--no-greeting')).toThrow(UsageError);
  });
});
