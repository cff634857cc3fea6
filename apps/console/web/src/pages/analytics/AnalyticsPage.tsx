import { useState, type ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useActionCounts } from '../../api/action-records';
import { useAnalytics, useAnalyticsQuestions, useChannelCounts, useTokenUsage } from '../../api/analytics';
import type { AnalyticsQuestions, Bot } from '../../api/types';
import { useBots } from '../../api/workspace';
import { useCurrentWorkspace } from '../../app/workspace-context';
import { SelectInput } from '../../components/Fields';
import { ErrorMessage, Loading, SuccessMessage } from '../../components/Messages';
import { Page, Section } from '../../components/Page';
import { AddToTestSetDialog } from '../evaluations/AddToTestSetDialog';
import { ActionCountsTable } from './ActionCountsTable';
import { AddAnswerDialog } from './AddAnswerDialog';
import { ChannelCountsTable } from './ChannelCountsTable';
import { MessagesChart } from './MessagesChart';
import { QuestionsTable } from './QuestionsTable';
import { RepliesChart } from './RepliesChart';
import { SummaryFigures } from './SummaryFigures';
import { BudgetLine, TokenUsageTable } from './TokenUsageTable';

const ALL = '';

/**
 * The figures of GET /v1/analytics for the last 30 days (every bot or one, kept in `?bot=`) as
 * charts with tables beside them, the most asked questions, and the unanswered ones with "Add an
 * answer" (owners and admins), the token usage, (issue 34) the calls per action, and (issue 35)
 * the conversations and messages per channel.
 */
export function AnalyticsPage() {
  const { workspace } = useCurrentWorkspace();
  const bots = useBots(workspace.id);
  const [params, setParams] = useSearchParams();
  const wanted = params.get('bot') ?? ALL;
  return (
    <Page title="Analytics" description="How visitors use your bots over the last 30 days, what they ask most, and what the bots could not answer.">
      {bots.isPending ? (
        <Loading what="bots" />
      ) : (
        <>
          {bots.isError ? <ErrorMessage error={bots.error} title="The bots could not be loaded." /> : null}
          <AnalyticsOf
            // `?bot=` is honoured only for a bot of the workspace.
            botId={bots.data?.some((b) => b.id === wanted) ? wanted : null}
            bots={bots.data ?? []}
            onChoose={(id) => setParams(id ? { bot: id } : {}, { replace: true })}
          />
        </>
      )}
    </Page>
  );
}

/** The bot picker, the figures and charts, the top and the unanswered questions of one bot or all (null). */
function AnalyticsOf({ botId, bots, onChoose }: { botId: string | null; bots: Bot[]; onChoose: (id: string) => void }) {
  const { workspace, canManage } = useCurrentWorkspace();
  const analytics = useAnalytics(workspace.id, botId);
  const questions = useAnalyticsQuestions(workspace.id, botId);
  const tokens = useTokenUsage(workspace.id, botId);
  const actionCounts = useActionCounts(workspace.id, botId);
  const channels = useChannelCounts(workspace.id, botId);
  const [added, setAdded] = useState<string | null>(null);
  const [addedCase, setAddedCase] = useState<{ botId: string; botName: string } | null>(null);
  const withQuestions = (show: (data: AnalyticsQuestions) => ReactNode) =>
    questions.isPending ? (
      <Loading what="questions" />
    ) : questions.isError ? (
      <ErrorMessage error={questions.error} title="The questions could not be loaded." />
    ) : (
      show(questions.data)
    );

  return (
    <>
      <div className="picker-row">
        <SelectInput
          label="Bot"
          id="analytics-bot"
          value={botId ?? ALL}
          onChange={onChoose}
          options={[{ value: ALL, label: 'All bots' }, ...bots.map((b) => ({ value: b.id, label: b.name }))]}
        />
      </div>
      <Section title="Activity" id="analytics-activity">
        {analytics.isPending ? (
          <Loading what="analytics" />
        ) : analytics.isError ? (
          <ErrorMessage error={analytics.error} title="The analytics could not be loaded." />
        ) : (
          <>
            <SummaryFigures analytics={analytics.data} />
            <div className="chart-grid">
              <MessagesChart daily={analytics.data.daily} />
              <RepliesChart analytics={analytics.data} />
            </div>
          </>
        )}
      </Section>
      <Section
        title="By channel"
        id="analytics-channels"
        description="Where the conversations of the last 30 days came from: the conversations on each channel (a conversation counts under the channel it started on), the visitor messages and the replies the bot could not answer."
      >
        {channels.isPending ? (
          <Loading what="channels" />
        ) : channels.isError ? (
          <ErrorMessage error={channels.error} title="The channels could not be loaded." />
        ) : (
          <ChannelCountsTable channels={channels.data.channels} />
        )}
      </Section>
      <Section title="Top questions" id="analytics-top">
        {withQuestions((data) => (
          <QuestionsTable label="Top questions table" questions={data.top} timesHeading="Times asked" empty="No questions asked yet." />
        ))}
      </Section>
      <Section
        title="Unanswered questions"
        id="analytics-unanswered"
        description="Questions whose latest asking found nothing in the knowledge to answer from. Add an answer and the bot uses it from the next chat on; the question then leaves this list once it is answered."
      >
        {added ? <SuccessMessage>Answer added for “{added}”.</SuccessMessage> : null}
        {addedCase ? (
          <SuccessMessage>
            Added to the test set of {addedCase.botName}.{' '}
            <Link to={`/w/${encodeURIComponent(workspace.id)}/evaluations?bot=${encodeURIComponent(addedCase.botId)}`}>Open Evaluations</Link>
          </SuccessMessage>
        ) : null}
        {withQuestions((data) => (
          <QuestionsTable
            label="Unanswered questions table"
            questions={data.unanswered}
            timesHeading="Times unanswered"
            empty="No unanswered questions."
            action={
              canManage
                ? (q) => (
                    <div className="actions__buttons">
                      <AddAnswerDialog workspaceId={workspace.id} question={q.question} botId={botId} onAdded={setAdded} />
                      <AddToTestSetDialog workspaceId={workspace.id} question={q.question} botId={botId} source="analytics" onAdded={({ botId: id, botName }) => setAddedCase({ botId: id, botName })} />
                    </div>
                  )
                : undefined
            }
          />
        ))}
      </Section>
      <Section
        title="Token usage"
        id="analytics-tokens"
        description="Prompt and completion tokens per bot and day over the last 30 days, as your model's provider reported them. Trying a bot in the playground counts nowhere."
      >
        {tokens.isPending ? (
          <Loading what="token usage" />
        ) : tokens.isError ? (
          <ErrorMessage error={tokens.error} title="The token usage could not be loaded." />
        ) : (
          <>
            <BudgetLine budget={tokens.data.budget} />
            <TokenUsageTable days={tokens.data.days} bots={bots} />
          </>
        )}
      </Section>
      <Section
        title="Actions"
        id="analytics-actions"
        description="The actions your bots called in conversations over the last 30 days: how many calls, what became of them, and how long those that ran took. Owners and admins see each call in the conversation's transcript."
      >
        {actionCounts.isPending ? (
          <Loading what="actions" />
        ) : actionCounts.isError ? (
          <ErrorMessage error={actionCounts.error} title="The actions could not be loaded." />
        ) : (
          <ActionCountsTable actions={actionCounts.data.actions} />
        )}
      </Section>
    </>
  );
}
