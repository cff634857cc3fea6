import { ServiceUnavailable } from '@sa/errors';

/** The chat model failed before or while answering; the message names the provider and why. */
export class ChatModelUnavailable extends ServiceUnavailable {
  constructor(reason: string) {
    super('chat model', reason);
  }
}
