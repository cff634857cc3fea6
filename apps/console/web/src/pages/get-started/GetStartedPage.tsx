import { useState } from 'react';
import { Form } from 'react-aria-components';
import { Link } from 'react-router';
import { isPending as documentPending, useKnowledge } from '../../api/knowledge';
import { useTryBot, type TryAnswer } from '../../api/setup';
import type { Bot } from '../../api/types';
import { useWidget } from '../../api/widget';
import { useBots, useWorkspace } from '../../api/workspace';
import { useCurrentWorkspace } from '../../app/workspace-context';
import { ActionButton } from '../../components/ActionButton';
import { TextAreaInput } from '../../components/Fields';
import { ErrorMessage, InfoMessage, Loading, SuccessMessage } from '../../components/Messages';
import { Page, Section } from '../../components/Page';
import { CreateBotForm } from '../bots/CreateBotForm';
import { AddTextForm, AddUrlForm } from '../knowledge/AddKnowledgeForms';
import { STATUS_BADGES, STATUS_LABELS } from '../knowledge/DocumentsTable';
import { InstallSection } from '../widget/InstallSection';

/**
 * "Get started": the first-run guide the owner lands on after setup (and finds in the navigation
 * later): 1. create a bot, 2. add a web page or text, 3. try a question, 4. the widget snippet.
 * Each step uses the same forms as the full pages; the guide only puts them in order.
 */
export function GetStartedPage() {
  const { workspace, canManage } = useCurrentWorkspace();
  const bots = useBots(workspace.id);
  const facts = useWorkspace(workspace.id);
  const bot: Bot | null = bots.data?.[0] ?? null;
  const base = `/w/${encodeURIComponent(workspace.id)}`;

  return (
    <Page title="Get started" description="Four steps from an empty workspace to a bot on your website.">
      {!canManage ? (
        <InfoMessage>
          <p>Owners and admins create bots and add knowledge. Ask one of them, or look around the other pages.</p>
        </InfoMessage>
      ) : null}
      <ol className="steps">
        <li className="steps__item">
          <Section title="1. Create a bot" id="step-bot">
            {bots.isPending ? (
              <Loading what="bots" />
            ) : bots.isError ? (
              <ErrorMessage error={bots.error} />
            ) : bot ? (
              <SuccessMessage>
                <p>
                  Your bot <strong>{bot.name}</strong> is ready. Change it on the <Link to={`${base}/bots/${encodeURIComponent(bot.id)}`}>bot's page</Link>.
                </p>
              </SuccessMessage>
            ) : canManage ? (
              <CreateBotForm workspaceId={workspace.id} enterprise={facts.data?.plan === 'enterprise'} onCreated={() => undefined} />
            ) : (
              <p>No bot yet.</p>
            )}
          </Section>
        </li>
        <li className="steps__item">
          <Section title="2. Add what it should know" id="step-knowledge" description="A web page of your site, or a text you paste. The bot answers from it.">
            {bot && canManage ? <KnowledgeStep workspaceId={workspace.id} bots={bots.data ?? []} /> : <p className="muted">Create a bot first.</p>}
          </Section>
        </li>
        <li className="steps__item">
          <Section title="3. Try a question" id="step-try" description="Ask what a visitor would ask. The answer quotes what you added.">
            {bot && canManage ? <TryStep workspaceId={workspace.id} bot={bot} /> : <p className="muted">Create a bot first.</p>}
          </Section>
        </li>
        <li className="steps__item">
          <Section title="4. Put it on your website" id="step-widget">
            {bot ? <WidgetStep workspaceId={workspace.id} bot={bot} widgetPage={`${base}/widget?bot=${encodeURIComponent(bot.id)}`} /> : <p className="muted">Create a bot first.</p>}
          </Section>
        </li>
      </ol>
    </Page>
  );
}

function KnowledgeStep({ workspaceId, bots }: { workspaceId: string; bots: Bot[] }) {
  const [kind, setKind] = useState<'text' | 'url'>('text');
  const documents = useKnowledge(workspaceId);
  const recent = (documents.data ?? []).slice(0, 5);
  return (
    <>
      <div className="segmented" role="group" aria-label="What to add">
        <button type="button" className={`button button--small ${kind === 'text' ? 'button--primary' : 'button--secondary'}`} aria-pressed={kind === 'text'} onClick={() => setKind('text')}>
          Text
        </button>
        <button type="button" className={`button button--small ${kind === 'url' ? 'button--primary' : 'button--secondary'}`} aria-pressed={kind === 'url'} onClick={() => setKind('url')}>
          Web page
        </button>
      </div>
      {kind === 'text' ? <AddTextForm workspaceId={workspaceId} bots={bots} /> : <AddUrlForm workspaceId={workspaceId} bots={bots} />}
      {documents.isError ? <ErrorMessage error={documents.error} /> : null}
      {recent.length ? (
        <ul className="plain-list" aria-label="Knowledge added">
          {recent.map((d) => (
            <li key={d.id}>
              <span className={`badge badge--${STATUS_BADGES[d.status]}`}>{STATUS_LABELS[d.status]}</span> {d.title}
              {d.status === 'failed' && d.failure_reason ? <span className="muted"> ({d.failure_reason})</span> : null}
            </li>
          ))}
        </ul>
      ) : null}
      {recent.some(documentPending) ? <p className="muted" role="status">Reading… this takes a few seconds.</p> : null}
    </>
  );
}

function TryStep({ workspaceId, bot }: { workspaceId: string; bot: Bot }) {
  const ask = useTryBot(workspaceId, bot.id);
  const [question, setQuestion] = useState('');
  const [answer, setAnswer] = useState<TryAnswer | null>(null);
  return (
    <>
      <Form
        className="form"
        aria-label="Try a question"
        onSubmit={(e) => {
          e.preventDefault();
          ask.mutate({ message: question.trim(), ...(answer ? { session_id: answer.session_id } : {}) }, { onSuccess: setAnswer });
        }}
      >
        <ErrorMessage error={ask.error} title="No answer." />
        <TextAreaInput label="Question" name="question" isRequired maxLength={2000} rows={2} value={question} onChange={setQuestion} markOptional={false} />
        <div className="form__actions">
          <ActionButton type="submit" className="button button--primary" isPending={ask.isPending}>
            Ask
          </ActionButton>
        </div>
      </Form>
      {answer ? (
        <div className="answer" aria-live="polite">
          <h3 className="subheading">Answer of {bot.name}</h3>
          <p className="answer__text">{answer.answer}</p>
          {answer.unanswered ? <p className="muted">The knowledge base had no answer to this: add a page or text about it in step 2.</p> : null}
          {answer.source_urls.length ? (
            <>
              <h4 className="subheading">Sources</h4>
              <ul className="plain-list">
                {answer.source_urls.map((u) => (
                  <li key={u}>{u}</li>
                ))}
              </ul>
            </>
          ) : null}
        </div>
      ) : null}
    </>
  );
}

function WidgetStep({ workspaceId, bot, widgetPage }: { workspaceId: string; bot: Bot; widgetPage: string }) {
  const widget = useWidget(workspaceId, bot.id);
  if (widget.isPending) return <Loading what="the widget snippet" />;
  if (widget.isError) return <ErrorMessage error={widget.error} />;
  return (
    <>
      <InstallSection install={widget.data.install} />
      <p className="section__description">
        Then list your website under allowed origins and choose colours and greeting on the <Link to={widgetPage}>Widget page</Link>.
      </p>
    </>
  );
}
