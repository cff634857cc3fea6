import { dropDatabase } from '../../libs/testing/src/integration/databases';
import type { System } from '../../tools/launcher/system';
import type { PrivateNats } from './infra';

export default async function globalTeardown(): Promise<void> {
  const started = (globalThis as Record<string, unknown>)['__SA_E2E__'] as { system: System; nats: PrivateNats; dbName: string } | undefined;
  if (!started) return;
  await started.system.stop(10000);
  await started.nats.stop();
  await dropDatabase(started.dbName);
}
