import { ServiceUnavailable } from '@sa/errors';

/** The embedding provider failed or answered nonsense; the message names the provider and why. */
export class EmbeddingsUnavailable extends ServiceUnavailable {
  constructor(reason: string) {
    super('embeddings', reason);
  }
}
