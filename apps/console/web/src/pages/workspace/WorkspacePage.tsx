import { useWorkspace } from '../../api/workspace';
import { useCurrentWorkspace } from '../../app/workspace-context';
import { ErrorMessage, Loading } from '../../components/Messages';
import { Page, Section } from '../../components/Page';
import { LiveAccess } from './LiveAccess';
import { PlanSummary } from './PlanSummary';
import { TokenBudgetSection } from './TokenBudgetForm';
import { UsageTable } from './UsageTable';

/** Plan, live-access state, usage against the quotas, and the monthly token budget (owners and admins set it; billing is elsewhere). */
export function WorkspacePage() {
  const { workspace: current, canManage } = useCurrentWorkspace();
  const workspace = useWorkspace(current.id);
  return (
    <Page title="Workspace" description="Plan, access and usage of this workspace, and its token budget. Billing is managed outside the console.">
      {workspace.isPending ? (
        <Loading what="the workspace" />
      ) : workspace.isError ? (
        <ErrorMessage error={workspace.error} />
      ) : (
        <>
          <Section title="Live access" id="live-access">
            <LiveAccess access={workspace.data.live_access} />
          </Section>
          <Section title="Plan" id="plan">
            <PlanSummary workspace={workspace.data} />
          </Section>
          <Section title="Usage" id="usage">
            <UsageTable usage={workspace.data.usage} />
          </Section>
          <Section title="Token budget" id="token-budget">
            <TokenBudgetSection workspaceId={current.id} canManage={canManage} />
          </Section>
        </>
      )}
    </Page>
  );
}
