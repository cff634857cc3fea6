import { useCurrentWorkspace } from '../../app/workspace-context';
import { Page, Section } from '../../components/Page';
import { InviteForm } from './InviteForm';
import { MembersTable } from './MembersTable';
import { PendingInvitations } from './PendingInvitations';

export function MembersPage() {
  const { canManage } = useCurrentWorkspace();
  return (
    <Page title="Members" description="People of this workspace. Owners and admins manage tokens, webhooks and members; only owners change owners; members read.">
      {canManage ? (
        <Section title="Invite someone" id="invite">
          <InviteForm />
        </Section>
      ) : null}
      <Section title="Members" id="members-list">
        <MembersTable />
      </Section>
      <Section title="Pending invitations" id="invitations">
        <PendingInvitations />
      </Section>
    </Page>
  );
}
