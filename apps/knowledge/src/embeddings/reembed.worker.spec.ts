import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { ServiceUnavailable } from '@sa/errors';
import { createLogger } from '@sa/logging';
import { loadKnowledgeConfig } from '../config/knowledge.config';
import { EmbeddingsUnavailable } from './embeddings.exception';
import { ReembedWorker } from './reembed.worker';
import type { WorkspaceEmbedderRow } from './workspace-embedders.repository';

// How a run ends when it cannot start: the worker's own decisions, with the database, the store
// and the models faked (the whole path runs for real in reembed.int-spec.ts).

const config = loadKnowledgeConfig({ WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex') });
const logger = createLogger('reembed-worker-spec', { level: 'silent' });
const row: WorkspaceEmbedderRow = {
  tenant_id: '3f2a9c1e-0000-4000-8000-000000000001',
  active_connection_id: null,
  active_embedder: null,
  target_connection_id: '3f2a9c1e-0000-4000-8000-000000000002',
  target_embedder: 'openai:m:3@3f2a9c1e',
  status: 'reindexing',
  generation: 7,
  done: 0,
  total: 3,
  error: null,
  claimed_by: null,
  started_at: new Date(),
  completed_at: null,
};

function workerWhoseTargetFails(err: Error) {
  const calls: string[] = [];
  let waiting = true;
  const repository = {
    claim: async () => (calls.push('claim'), waiting ? ((waiting = false), row) : null),
    release: async () => void calls.push('release'),
    progress: async () => (calls.push('progress'), true),
    fail: async (_t: string, _g: number, _w: string, reason: string) => (calls.push(`fail: ${reason}`), true),
  };
  const embedders = {
    installationId: async () => 'hashing:hashing-v1:384',
    target: async () => {
      throw err;
    },
  };
  const store = { deleteEmbedders: async (_t: string, keep: string[]) => void calls.push(`delete all but ${keep.join()}`) };
  return { worker: new ReembedWorker(repository as never, embedders as never, store as never, config, logger), calls, reclaimable: () => (waiting = true) };
}

it('hands a run back after an error a later run may get past, and tries it again at the next look, not at once', async () => {
  const { worker, calls, reclaimable } = workerWhoseTargetFails(new ServiceUnavailable('bots', 'no instance is running'));
  await worker.pump();
  expect(calls).toEqual(['claim', 'release']);
  reclaimable();
  await worker.pump();
  expect(calls).toEqual(['claim', 'release', 'claim', 'release']);
});

it("fails the switch when the model is the reason, after deleting the partial index, and looks for the next one", async () => {
  const { worker, calls } = workerWhoseTargetFails(new EmbeddingsUnavailable('The provider refused the key (HTTP 401): Incorrect API key provided: [key]'));
  await worker.pump();
  expect(calls).toEqual(['claim', 'progress', 'delete all but hashing:hashing-v1:384', 'fail: The provider refused the key (HTTP 401): Incorrect API key provided: [key]', 'claim']);
});
