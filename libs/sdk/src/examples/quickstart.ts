/**
 * The SDK against a running system:
 *
 *   SA_TOKEN=mgpt_… node dist/libs/sdk/src/examples/quickstart.js
 *
 * (SA_BASE_URL defaults to http://127.0.0.1:3000/v1.) It makes sure a bot exists, teaches it one
 * fact, waits until the document is indexed, streams an answer, reads the conversation back, and
 * checks a webhook signature the way a receiver would.
 */
import { createSupportAgentClient, signWebhook, streamChat, verifyWebhook } from '../index.js';

const say = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const token = process.env['SA_TOKEN'];
  if (!token) throw new Error('set SA_TOKEN to an API token (npm run -s admin -- token create --workspace ID --scopes all)');
  const opts = { baseUrl: process.env['SA_BASE_URL'] || 'http://127.0.0.1:3000/v1', token };
  const api = createSupportAgentClient(opts);

  const bots = await api.GET('/bots');
  if (bots.error) throw new Error(`GET /bots: ${bots.response.status} ${JSON.stringify(bots.error)}`);
  let bot = bots.data.data[0]?.id;
  if (!bot) {
    const created = await api.POST('/bots', { body: { name: 'Quickstart bot', language: 'en' } });
    if (created.error) throw new Error(`POST /bots: ${created.response.status} ${JSON.stringify(created.error)}`);
    bot = created.data.data.id;
  }
  say(`bot ${bot}`);

  const ingest = await api.POST('/kb/ingest', { body: { title: 'Opening hours', text: 'The shop is open from nine in the morning to five in the afternoon, Monday to Friday.', chatbotId: bot } });
  if (ingest.error) throw new Error(`POST /kb/ingest: ${ingest.response.status} ${JSON.stringify(ingest.error)}`);
  const docId = ingest.data.data.id;
  for (let i = 0; ; i++) {
    const kb = await api.GET('/kb', { params: { query: { chatbotId: bot } } });
    const status = kb.data?.data.find((d) => d.id === docId)?.status;
    if (status === 'ready') break;
    if (status === 'failed' || i > 100) throw new Error(`document ${docId} is ${status}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  say(`document ${docId} ready`);

  const chat = await streamChat(opts, { message: 'When is the shop open?', chatbotId: bot });
  let answer = '';
  for await (const text of chat.deltas) answer += text;
  say(`session ${chat.sessionId}`);
  say(`answer: ${answer}`);

  const messages = await api.GET('/conversations/{sessionId}', { params: { path: { sessionId: chat.sessionId ?? '' } } });
  say(`conversation: ${messages.data?.data.map((m) => m.role).join(', ')}`);

  const secret = 'whsec_example';
  const rawBody = JSON.stringify({ type: 'ticket.created' });
  const timestamp = Math.floor(Date.now() / 1000);
  const verified = verifyWebhook({
    rawBody,
    secret,
    headers: { 'x-service-event': 'ticket.created', 'x-service-timestamp': String(timestamp), 'x-service-signature': signWebhook(secret, timestamp, rawBody) },
  });
  say(`webhook signature: ${verified.ok ? 'valid' : verified.message}`);
}

main().catch((err: unknown) => {
  process.stderr.write(`quickstart failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
