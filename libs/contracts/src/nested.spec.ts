import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { UpdateBotActionSettingsBody } from './actions';
import { ChatRequest } from './chat';
import { PlaygroundTurnBody } from './playground';
import { toValidationIssues } from './validation';

const OPTIONS = { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: false } as const;
const paths = <T extends object>(cls: new () => T, plain: object) => toValidationIssues(validateSync(plainToInstance(cls, plain), OPTIONS), ['body']).map((i) => i.path.join('.'));

/** @Nested: a member declared as one object must be one object; one declared as a list takes a list of them. */
describe('@Nested members', () => {
  it('refuse an array (or a string) where one object is declared', () => {
    expect(paths(ChatRequest, { message: 'Confirm', sessionId: 's', action_confirmation: [{ call_id: 'call_1', confirm: true }] })).toEqual(['body.action_confirmation']);
    expect(paths(ChatRequest, { message: 'Confirm', sessionId: 's', action_confirmation: 'call_1' })).toEqual(['body.action_confirmation']);
    expect(paths(UpdateBotActionSettingsBody, { builtins: [{ booking: true }] })).toEqual(['body.builtins']);
    expect(paths(ChatRequest, { message: 'Confirm', sessionId: 's', action_confirmation: { call_id: 'call_1', confirm: true } })).toEqual([]);
  });

  it('still take a list where a list is declared', () => {
    expect(paths(PlaygroundTurnBody, { message: 'Hi', history: [{ role: 'user', content: 'Hello' }] })).toEqual([]);
    expect(paths(PlaygroundTurnBody, { message: 'Hi', history: [{ role: 'robot', content: 'Hello' }] })).toEqual(['body.history.0.role']);
  });
});
