import { useState } from 'react';
import { useAudit } from '../../api/workspace';
import { useCurrentWorkspace } from '../../app/workspace-context';
import { ErrorMessage, Loading } from '../../components/Messages';
import { Page } from '../../components/Page';
import { AuditTable } from './AuditTable';
import { ActionButton } from '../../components/ActionButton';

const PAGE = 50;
const MAX = 500;

/** Every change made through the console or the admin CLI: who, what, when (newest first). */
export function AuditPage() {
  const { workspace } = useCurrentWorkspace();
  const [limit, setLimit] = useState(PAGE);
  const audit = useAudit(workspace.id, limit);
  return (
    <Page title="Audit log" description="Every change made through the console or the admin CLI, newest first.">
      {audit.isPending ? (
        <Loading what="the audit log" />
      ) : audit.isError ? (
        <ErrorMessage error={audit.error} />
      ) : (
        <>
          <AuditTable entries={audit.data} />
          {audit.data.length >= limit && limit < MAX ? (
            <div className="form__actions">
              <ActionButton className="button button--secondary" isPending={audit.isFetching} onPress={() => setLimit((l) => Math.min(MAX, l + PAGE))}>
                Show older entries
              </ActionButton>
            </div>
          ) : null}
        </>
      )}
    </Page>
  );
}
