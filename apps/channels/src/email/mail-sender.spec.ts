import 'reflect-metadata';
import { PermanentSendError, RetryableSendError } from '../providers/provider';
import { replySubject, toSendError } from './mail-sender';

describe('replySubject', () => {
  it.each([
    ['Order question', 'Re: Order question'],
    ['Re: Order question', 'Re: Order question'],
    ['RE: Order question', 'RE: Order question'],
    ['re:Order', 're:Order'],
    ['Re[2]: Order', 'Re[2]: Order'],
    ['Fwd: Order', 'Re: Fwd: Order'],
    ['Regarding my order', 'Re: Regarding my order'],
    ['Two\r\nlines', 'Re: Two lines'],
    ['', 'Re:'],
  ])('%j → %j', (subject, expected) => {
    expect(replySubject(subject)).toBe(expected);
  });
});

describe('toSendError', () => {
  const smtpError = (responseCode: number, code = 'EENVELOPE') => Object.assign(new Error(`Can't send mail: ${responseCode} x`), { responseCode, code });

  it.each([421, 450, 451, 452, 503])('%i is retryable', (status) => {
    expect(toSendError(smtpError(status))).toBeInstanceOf(RetryableSendError);
  });

  it.each([500, 550, 551, 552, 553, 554])('%i is permanent', (status) => {
    expect(toSendError(smtpError(status, 'EMESSAGE'))).toBeInstanceOf(PermanentSendError);
  });

  it('retries connection failures and gives up on refused logins and certificates', () => {
    expect(toSendError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:25'), { code: 'ESOCKET' }))).toBeInstanceOf(RetryableSendError);
    expect(toSendError(Object.assign(new Error('Connection timeout'), { code: 'ETIMEDOUT' }))).toBeInstanceOf(RetryableSendError);
    expect(toSendError(Object.assign(new Error('Invalid login'), { code: 'EAUTH' }))).toBeInstanceOf(PermanentSendError);
    expect(toSendError(Object.assign(new Error('self-signed certificate'), { code: 'ESOCKET', originalCode: 'DEPTH_ZERO_SELF_SIGNED_CERT' }))).toBeInstanceOf(PermanentSendError);
  });

  it('never repeats a password', () => {
    const err = toSendError(Object.assign(new Error('535 bad credentials for s3cret-pass'), { responseCode: 535 }), { secrets: { smtp_password: 's3cret-pass' } });
    expect(err.message).toBe('SMTP: 535 bad credentials for [redacted]');
  });
});
