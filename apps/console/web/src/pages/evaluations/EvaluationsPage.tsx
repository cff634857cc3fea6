import { useEffect, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { keys } from '../../api/keys';
import { exportHref, isRunActive, useCreateEvalCase, useEvalCases, useEvalRun, useEvalRuns, useStartEvalRun } from '../../api/evaluations';
import type { Bot, EvalRun } from '../../api/types';
import { useBots } from '../../api/workspace';
import { useCurrentWorkspace } from '../../app/workspace-context';
import { ActionButton } from '../../components/ActionButton';
import { SelectInput } from '../../components/Fields';
import { ErrorMessage, InfoMessage, Loading, SuccessMessage } from '../../components/Messages';
import { Page, Section } from '../../components/Page';
import { formatPercent } from '../../lib/evaluations';
import { bodyOf, CaseDialog } from './CaseDialog';
import { emptyDraft } from './CaseFields';
import { ImportDialog } from './ImportDialog';
import { RunResults } from './RunResults';
import { RunsHistory } from './RunsHistory';
import { RunSummary } from './RunSummary';
import { SettingsSection } from './SettingsForm';
import { TestSetTable } from './TestSetTable';

/**
 * "Evaluations" (issue 33): a bot's test set (questions and what a good reply must do), runs of it
 * through the real chat path with each case's verdict, reply and passages, the runs history, and
 * the gate that e-mails owners and admins when a run passes too few. Owners and admins edit and
 * run; members read. The bot is kept in `?bot=`, a run other than the latest in `?run=`.
 */
export function EvaluationsPage() {
  const { workspace } = useCurrentWorkspace();
  const bots = useBots(workspace.id);
  const [params, setParams] = useSearchParams();
  const wanted = params.get('bot');
  const bot = bots.data?.find((b) => b.id === wanted) ?? bots.data?.[0] ?? null;
  return (
    <Page title="Evaluations" description="Test a bot before and after every change: a set of questions and what a good reply must do, asked through the real chat path and graded.">
      {bots.isPending ? (
        <Loading what="bots" />
      ) : bots.isError ? (
        <ErrorMessage error={bots.error} title="The bots could not be loaded." />
      ) : !bot ? (
        <p className="empty">No bots yet: create a bot first, then give it a test set.</p>
      ) : (
        <>
          <div className="picker-row">
            <SelectInput label="Bot" id="evaluations-bot" value={bot.id} onChange={(id) => setParams({ bot: id }, { replace: true })} options={bots.data.map((b) => ({ value: b.id, label: b.name }))} />
          </div>
          <EvaluationsOf key={bot.id} bot={bot} runParam={params.get('run')} onRun={(run) => setParams(run ? { bot: bot.id, run } : { bot: bot.id }, { replace: true })} />
        </>
      )}
    </Page>
  );
}

/** Says when the shown run finishes (a polite status), once. */
function useFinishedAnnouncement(run: EvalRun | undefined): string | null {
  const seenActive = useRef<string | null>(null);
  const [text, setText] = useState<string | null>(null);
  useEffect(() => {
    if (!run) return;
    if (isRunActive(run)) {
      seenActive.current = run.id;
      setText(null);
    } else if (seenActive.current === run.id) {
      seenActive.current = null;
      setText(run.status === 'completed' && run.pass_rate !== null ? `Run complete: ${formatPercent(run.pass_rate)} passed (${run.passed} of ${run.total}).` : `Run ${run.status}.`);
    }
  }, [run]);
  return text;
}

function EvaluationsOf({ bot, runParam, onRun }: { bot: Bot; runParam: string | null; onRun: (runId: string | null) => void }) {
  const { workspace, canManage } = useCurrentWorkspace();
  const cases = useEvalCases(workspace.id, bot.id);
  const runs = useEvalRuns(workspace.id, bot.id);
  const start = useStartEvalRun(workspace.id, bot.id);
  const create = useCreateEvalCase(workspace.id);
  const [notice, setNotice] = useState<string | null>(null);
  const latest = runs.data?.[0];
  const selectedId = runs.data?.some((r) => r.id === runParam) ? runParam : (latest?.id ?? null);
  const detail = useEvalRun(workspace.id, bot.id, selectedId);
  // Both are read every second while the run goes.
  const shown = detail.data?.pages[0]?.run ?? runs.data?.find((r) => r.id === selectedId);
  const finished = useFinishedAnnouncement(shown);
  const queryClient = useQueryClient();
  // A finished run may put the bot under its gate (or back over it): the banner is read again.
  useEffect(() => {
    if (finished) void queryClient.invalidateQueries({ queryKey: keys.evalAlerts(workspace.id) });
  }, [finished, queryClient, workspace.id]);
  const active = isRunActive(latest);

  return (
    <>
      {canManage ? null : (
        <div className="page-notice">
          <InfoMessage>
            <p>Owners and admins change the test set and its settings and start runs. You can see them here.</p>
          </InfoMessage>
        </div>
      )}
      <Section title={selectedId && latest && selectedId !== latest.id ? 'Run' : 'Latest run'} id="eval-run">
        {canManage ? (
          <div className="eval-toolbar">
            <ActionButton
              className="button button--primary"
              isPending={start.isPending}
              isDisabled={active}
              onPress={() =>
                start.mutate(undefined, {
                  onSuccess: () => {
                    setNotice(null);
                    onRun(null);
                  },
                })
              }
            >
              Run now
            </ActionButton>
            {active ? <span className="muted small">A run is going: wait for it to finish.</span> : null}
          </div>
        ) : null}
        <ErrorMessage error={start.error} title="The run did not start." />
        <div role="status" className="eval-announce">
          {finished ? <p>{finished}</p> : null}
        </div>
        {runs.isPending ? (
          <Loading what="runs" />
        ) : runs.isError ? (
          <ErrorMessage error={runs.error} title="The runs could not be loaded." />
        ) : !shown ? (
          <p className="empty">No runs yet.{canManage ? ' Add cases to the test set, then choose “Run now”.' : ''}</p>
        ) : (
          <RunSummary run={shown} />
        )}
      </Section>
      {shown && shown.status !== 'queued' ? (
        <Section title="Results" id="eval-results" description="Each case’s verdict by the rules (and the judge’s beside it when it graded), why, the reply and the passages it was given. Cases whose verdict changed since the previous run come first.">
          {detail.isPending ? (
            <Loading what="results" />
          ) : detail.isError ? (
            <ErrorMessage error={detail.error} title="The results could not be loaded." />
          ) : (
            <>
              <RunResults results={detail.data.pages.flatMap((p) => p.results)} />
              {detail.hasNextPage ? (
                <ActionButton className="button button--secondary" isPending={detail.isFetchingNextPage} onPress={() => void detail.fetchNextPage()}>
                  Show more results ({detail.data.pages.reduce((n, p) => n + p.results.length, 0)} of {detail.data.pages[0]?.results_total ?? 0} shown)
                </ActionButton>
              ) : null}
            </>
          )}
        </Section>
      ) : null}
      <Section title="Test set" id="eval-test-set" description="The questions every run asks, and what a good reply must do. Import and export as CSV or JSONL.">
        {notice ? <SuccessMessage>{notice}</SuccessMessage> : null}
        <div className="eval-toolbar">
          {canManage ? (
            <>
              <CaseDialog
                trigger="Add case"
                triggerClass="button button--primary"
                title="Add a case"
                initial={emptyDraft()}
                submit="Add case"
                isPending={create.isPending}
                error={create.error}
                onOpen={() => create.reset()}
                onSave={async (draft) => {
                  await create.mutateAsync({ botId: bot.id, body: { ...bodyOf(draft), source: 'manual' } });
                  setNotice('Case added.');
                }}
              />
              <ImportDialog workspaceId={workspace.id} botId={bot.id} onImported={(r) => setNotice(`Imported ${r.imported} ${r.imported === 1 ? 'case' : 'cases'}; the test set has ${r.total}.`)} />
            </>
          ) : null}
          <a className="button button--secondary" href={exportHref(workspace.id, bot.id, 'csv')} download>
            Export CSV
          </a>
          <a className="button button--secondary" href={exportHref(workspace.id, bot.id, 'jsonl')} download>
            Export JSONL
          </a>
        </div>
        {cases.isPending ? (
          <Loading what="the test set" />
        ) : cases.isError ? (
          <ErrorMessage error={cases.error} title="The test set could not be loaded." />
        ) : (
          <TestSetTable workspaceId={workspace.id} botId={bot.id} cases={cases.data} canManage={canManage} />
        )}
      </Section>
      <Section title="Settings" id="eval-settings">
        <SettingsSection workspaceId={workspace.id} botId={bot.id} canManage={canManage} />
      </Section>
      <Section title="History" id="eval-history" description="Every run of this bot’s test set, newest first in the table.">
        {runs.data ? <RunsHistory runs={runs.data} selectedId={selectedId} onSelect={(id) => onRun(id)} /> : null}
      </Section>
    </>
  );
}
