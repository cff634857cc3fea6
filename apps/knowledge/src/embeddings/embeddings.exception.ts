import { ServiceUnavailable } from '@sa/errors';

/** The embedding provider failed or answered nonsense; the message names the provider and why. */
export class EmbeddingsUnavailable extends ServiceUnavailable {
  constructor(readonly reason: string) {
    super('embeddings', reason);
  }
}
