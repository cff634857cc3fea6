import { useState } from 'react';
import { Form } from 'react-aria-components';
import { Link, useSearchParams } from 'react-router';
import { useConversation, useConversations, type ConversationFilter } from '../../api/records';
import { useBots } from '../../api/workspace';
import { useCurrentWorkspace } from '../../app/workspace-context';
import { ActionButton } from '../../components/ActionButton';
import { DateTime } from '../../components/DateTime';
import { SelectInput, TextInput } from '../../components/Fields';
import { ErrorMessage, Loading, SuccessMessage } from '../../components/Messages';
import { Page, Section } from '../../components/Page';
import { CHANNEL_OPTIONS, channelName } from '../../lib/records';
import { AddToTestSetDialog } from '../evaluations/AddToTestSetDialog';
import { LeadCard } from './LeadCard';
import { Transcript } from './Transcript';

/** /w/:ws/conversations: sessions with search and filters; ?session= opens one beside its lead. */
export function ConversationsPage() {
  const { workspace, canManage } = useCurrentWorkspace();
  const [params, setParams] = useSearchParams();
  const [added, setAdded] = useState<{ botId: string; botName: string } | null>(null);
  const bots = useBots(workspace.id);
  const [text, setText] = useState(params.get('q') ?? '');
  const filter: ConversationFilter = {
    q: params.get('q') || undefined,
    channel: (params.get('channel') || undefined) as ConversationFilter['channel'],
    chatbotId: params.get('bot') || undefined,
  };
  const sessions = useConversations(workspace.id, filter);
  const selected = params.get('session');
  const detail = useConversation(workspace.id, selected);

  const setParam = (name: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    if (name !== 'session') next.delete('session');
    setParams(next);
  };
  const sessionHref = (id: string) => {
    const next = new URLSearchParams(params);
    next.set('session', id);
    return `?${next.toString()}`;
  };

  return (
    <Page title="Conversations" description="What visitors and API callers asked, and what the bots answered, with the sources they used and the feedback they got.">
      <Section title="Find conversations" id="conversation-filters">
        <Form
          className="form form--inline"
          role="search"
          aria-label="Conversations"
          onSubmit={(e) => {
            e.preventDefault();
            setParam('q', text.trim());
          }}
        >
          <div className="form__row">
            <TextInput label="Search messages" name="q" value={text} onChange={setText} />
            <SelectInput label="Channel" value={filter.channel ?? ''} onChange={(v) => setParam('channel', v)} options={[{ value: '', label: 'All channels' }, ...CHANNEL_OPTIONS]} />
            <SelectInput
              label="Bot"
              id="conversations-bot"
              value={filter.chatbotId ?? ''}
              onChange={(v) => setParam('bot', v)}
              options={[{ value: '', label: 'All bots' }, ...(bots.data ?? []).map((b) => ({ value: b.id, label: b.name }))]}
            />
          </div>
          <div className="form__actions form__actions--inline">
            <ActionButton type="submit" className="button button--primary" isPending={sessions.isFetching && !sessions.isPending}>
              Search
            </ActionButton>
          </div>
        </Form>
      </Section>
      <div className="records">
        <Section title="Sessions" id="conversations-list">
          {sessions.isPending ? (
            <Loading what="conversations" />
          ) : sessions.isError ? (
            <ErrorMessage error={sessions.error} />
          ) : sessions.data.length === 0 ? (
            <p className="empty">No conversations match.</p>
          ) : (
            <div className="table-wrap" tabIndex={0} role="region" aria-label="Conversations table">
              <table className="table">
                <thead>
                  <tr>
                    <th scope="col">Started with</th>
                    <th scope="col">Channel</th>
                    <th scope="col">Messages</th>
                    <th scope="col">Last activity</th>
                  </tr>
                </thead>
                <tbody>
                  {sessions.data.map((c) => (
                    <tr key={c.session_id} aria-current={c.session_id === selected ? 'true' : undefined}>
                      <th scope="row" className="table__name">
                        <Link to={sessionHref(c.session_id)}>
                          {c.preview || 'No messages'}
                          <span className="visually-hidden"> (session {c.session_id})</span>
                        </Link>
                      </th>
                      <td>{channelName(c.channel)}</td>
                      <td>{c.message_count}</td>
                      <td>
                        <DateTime value={c.last_at} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </Section>
        {selected ? (
          <Section title="Conversation" id="conversation-detail" description={`Session ${selected}`}>
            {detail.isPending ? (
              <Loading what="the conversation" />
            ) : detail.isError ? (
              <ErrorMessage error={detail.error} />
            ) : (
              <div className="records__detail">
                <div>
                  {added ? (
                    <SuccessMessage>
                      Added to the test set of {added.botName}.{' '}
                      <Link to={`/w/${encodeURIComponent(workspace.id)}/evaluations?bot=${encodeURIComponent(added.botId)}`}>Open Evaluations</Link>
                    </SuccessMessage>
                  ) : null}
                  <Transcript
                    messages={detail.data.messages}
                    visitorAction={
                      canManage
                        ? (m) => <AddToTestSetDialog workspaceId={workspace.id} question={m.content} botId={m.chatbot_id ?? null} source="transcript" onAdded={({ botId, botName }) => setAdded({ botId, botName })} />
                        : undefined
                    }
                  />
                </div>
                <aside aria-labelledby="conversation-lead">
                  <h3 id="conversation-lead" className="subheading">
                    Lead
                  </h3>
                  <LeadCard lead={detail.data.lead} workspaceId={workspace.id} />
                </aside>
              </div>
            )}
          </Section>
        ) : null}
      </div>
    </Page>
  );
}
