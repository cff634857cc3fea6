import { TEMPLATE_DATABASE, dropDatabase } from './databases';

export default async function globalTeardown(): Promise<void> {
  await dropDatabase(TEMPLATE_DATABASE);
}
