import { useState } from 'react';
import { Form } from 'react-aria-components';
import { useHandoffConversation, useReleaseHandoff, useReplyHandoff, useTakeHandoff } from '../../api/handoff';
import { useCurrentWorkspace } from '../../app/workspace-context';
import { ActionButton } from '../../components/ActionButton';
import { DateTime } from '../../components/DateTime';
import { TextAreaInput } from '../../components/Fields';
import { ErrorMessage, Loading } from '../../components/Messages';
import { channelName } from '../../lib/records';
import { Transcript } from '../conversations/Transcript';
import { replyNote, stateLabel } from './handoff-labels';

/**
 * One conversation: its channel (a reply goes out through it: WhatsApp, Telegram …), its transcript,
 * "Take over", the reply box and "Hand back" (owners and admins).
 */
export function HandoffConversationPanel({ sessionId }: { sessionId: string }) {
  const { workspace, canManage, session } = useCurrentWorkspace();
  const conversation = useHandoffConversation(workspace.id, sessionId);
  const take = useTakeHandoff(workspace.id);
  const release = useReleaseHandoff(workspace.id);
  const reply = useReplyHandoff(workspace.id);
  const [text, setText] = useState('');

  if (conversation.isPending) return <Loading what="the conversation" />;
  if (conversation.isError) return <ErrorMessage error={conversation.error} />;
  const { handoff, messages } = conversation.data;
  const mine = handoff.state === 'taken' && handoff.taken_by_id === session.person.id;

  return (
    <div className="stack-sm">
      <p role="status">
        <strong>{stateLabel(handoff)}</strong> · on {channelName(handoff.channel)} · asked <DateTime value={handoff.requested_at} />
      </p>
      <Transcript messages={messages} empty="No messages yet: the visitor asked for a person before writing." />
      {canManage ? (
        <>
          <div className="actions__buttons">
            {handoff.state !== 'taken' || !mine ? (
              <ActionButton className="button button--primary" isPending={take.isPending} onPress={() => take.mutate(sessionId)}>
                Take over
              </ActionButton>
            ) : null}
            {handoff.state !== 'released' ? (
              <ActionButton className="button button--secondary" isPending={release.isPending} onPress={() => release.mutate(sessionId)}>
                Hand back
              </ActionButton>
            ) : null}
          </div>
          <ErrorMessage error={take.error ?? release.error} />
          {mine ? (
            <Form
              className="form"
              onSubmit={(e) => {
                e.preventDefault();
                const value = text.trim();
                if (!value) return;
                reply.mutate({ sessionId, text: value }, { onSuccess: () => setText('') });
              }}
            >
              <TextAreaInput label="Your reply" isRequired rows={3} maxLength={4000} value={text} onChange={setText} description={replyNote(handoff.channel, channelName(handoff.channel))} />
              <ErrorMessage error={reply.error} />
              <div className="form__actions">
                <ActionButton type="submit" className="button button--primary" isPending={reply.isPending}>
                  Reply
                </ActionButton>
              </div>
            </Form>
          ) : (
            <p className="muted">Take the conversation over to reply; the bot stays silent for it until you hand it back.</p>
          )}
        </>
      ) : (
        <p className="muted">Owners and admins take conversations over and reply.</p>
      )}
    </div>
  );
}
