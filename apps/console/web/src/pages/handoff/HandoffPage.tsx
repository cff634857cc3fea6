import { useSearchParams } from 'react-router';
import { useHandoffQueue } from '../../api/handoff';
import { useBots } from '../../api/workspace';
import { useCurrentWorkspace } from '../../app/workspace-context';
import { SelectInput } from '../../components/Fields';
import { ErrorMessage, Loading } from '../../components/Messages';
import { Page, Section } from '../../components/Page';
import { HandoffConversationPanel } from './HandoffConversationPanel';
import { HandoffQueueTable } from './HandoffQueueTable';

/** /w/:workspaceId/handoff: the queue of conversations that asked for a person, and the open one (`?session=`). */
export function HandoffPage() {
  const { workspace } = useCurrentWorkspace();
  const [params, setParams] = useSearchParams();
  const include = params.get('show') === 'all' ? 'all' : 'open';
  const selected = params.get('session');
  const queue = useHandoffQueue(workspace.id, include);
  const bots = useBots(workspace.id);
  const set = (key: string, value: string | null) =>
    setParams((p) => {
      const next = new URLSearchParams(p);
      if (value === null) next.delete(key);
      else next.set(key, value);
      return next;
    });

  return (
    <Page title="Handoff" description="Conversations whose visitor asked for a person. Take one over to answer yourself: the bot stays silent in it until you hand it back. Owners and admins are also e-mailed: at once for the first request, then at most one digest every few minutes.">
      <Section title="Queue" id="handoff-queue">
        <SelectInput
          label="Show"
          value={include}
          onChange={(v) => set('show', v === 'all' ? 'all' : null)}
          options={[
            { value: 'open', label: 'Waiting and taken over' },
            { value: 'all', label: 'Also handed back' },
          ]}
        />
        {queue.isPending ? (
          <Loading what="the queue" />
        ) : queue.isError ? (
          <ErrorMessage error={queue.error} />
        ) : (
          <HandoffQueueTable handoffs={queue.data} bots={bots.data ?? []} selected={selected} onOpen={(id) => set('session', id)} />
        )}
      </Section>
      {selected ? (
        <Section title="Conversation" id="handoff-conversation">
          <HandoffConversationPanel key={selected} sessionId={selected} />
        </Section>
      ) : null}
    </Page>
  );
}
