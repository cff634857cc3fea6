import { useMemo, useState } from 'react';
import { CheckboxGroup, FieldError, Form, Label, Text } from 'react-aria-components';
import { Link, Navigate, useLocation, useParams } from 'react-router';
import { isUnauthenticated } from '../../api/client';
import { ApiError } from '../../api/errors';
import { useAllowInteraction, useDenyInteraction, useInteraction } from '../../api/oauth';
import { useSession } from '../../api/session';
import type { OAuthInteraction } from '../../api/types';
import { useBots } from '../../api/workspace';
import { ActionButton } from '../../components/ActionButton';
import { ClientName } from '../../components/ClientName';
import { BotScopeChoice, CheckboxItem, SelectInput } from '../../components/Fields';
import { ErrorMessage, InfoMessage, Loading, SuccessMessage } from '../../components/Messages';
import { SCOPES, type Scope } from '../../lib/contracts';
import { scopeWords } from '../../lib/scopes';
import { AuthLayout } from '../layout/AuthLayout';
import { BotChoice } from '../tokens/BotChoice';

const TITLE = 'Connect an application';

/** Leaves the console for the authorization server's next step (then the application). */
function leave(redirectTo: string) {
  window.location.assign(redirectTo);
}

/** Who asks, where it returns, what it asks for (in words, with the scope names). */
function ClientSummary({ interaction }: { interaction: OAuthInteraction }) {
  const { client } = interaction;
  return (
    <>
      <dl className="summary">
        <div>
          <dt>Application</dt>
          <dd>
            <ClientName name={client.name} />
          </dd>
        </div>
        <div>
          <dt>Returns to</dt>
          <dd>
            <code>{client.redirect_host}</code>
          </dd>
        </div>
        <div>
          <dt>Client ID</dt>
          <dd>
            <code>{client.id}</code>
          </dd>
        </div>
      </dl>
      <InfoMessage tone="warning">
        <p>
          The application chose its name itself: the console has not checked it. Continue only if you started this connection yourself, in an application you trust, and it returns to the address you
          expect.
        </p>
      </InfoMessage>
    </>
  );
}

function RequestedScopes({ scopes }: { scopes: string[] }) {
  return (
    <section aria-labelledby="requested-title" className="stack-xs">
      <h2 id="requested-title" className="section__title">
        It asks to
      </h2>
      {scopes.length === 0 ? (
        <p className="muted">It asks for no permission.</p>
      ) : (
        <ul className="scope-list">
          {scopes.map((s) => (
            <li key={s}>
              {scopeWords(s)} <code>{s}</code>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function DenyButton({ uid, onLeaving, label = 'Deny' }: { uid: string; onLeaving: () => void; label?: string }) {
  const deny = useDenyInteraction(uid);
  return (
    <>
      <ErrorMessage error={deny.error} title="The refusal was not sent." />
      <ActionButton
        className="button button--secondary"
        isPending={deny.isPending || deny.isSuccess}
        onPress={() =>
          deny.mutate(undefined, {
            onSuccess: ({ redirect_to }) => {
              onLeaving();
              leave(redirect_to);
            },
          })
        }
      >
        {label}
      </ActionButton>
    </>
  );
}

function ConsentForm({ uid, interaction }: { uid: string; interaction: OAuthInteraction }) {
  const allow = useAllowInteraction(uid);
  const [workspaceId, setWorkspaceId] = useState(interaction.workspaces[0]?.id ?? '');
  const requested = useMemo(() => interaction.requested_scopes.filter((s) => (SCOPES as readonly string[]).includes(s)), [interaction]);
  const [scopes, setScopes] = useState<string[]>(requested);
  const [allBots, setAllBots] = useState(true);
  const [botIds, setBotIds] = useState<string[]>([]);
  const [leaving, setLeaving] = useState(false);
  const bots = useBots(workspaceId);
  const host = interaction.client.redirect_host;

  if (leaving) {
    return (
      <SuccessMessage>
        <p>Returning you to {host}…</p>
      </SuccessMessage>
    );
  }

  return (
    <Form
      className="form"
      onSubmit={(e) => {
        e.preventDefault();
        allow.mutate(
          { workspace_id: workspaceId, scopes: scopes as Scope[], bot_ids: allBots ? null : botIds },
          {
            onSuccess: ({ redirect_to }) => {
              setLeaving(true);
              leave(redirect_to);
            },
          },
        );
      }}
    >
      <ErrorMessage error={allow.error} title="The connection was not approved." />
      <SelectInput
        label="Workspace"
        id="consent-workspace"
        value={workspaceId}
        onChange={(id) => {
          setWorkspaceId(id);
          setBotIds([]);
        }}
        options={interaction.workspaces.map((w) => ({ value: w.id, label: w.name }))}
        description="Only workspaces where you are an owner or an admin."
      />
      <CheckboxGroup className="choice-group" value={scopes} onChange={setScopes} isRequired name="scopes" validate={(v) => (v.length === 0 ? 'Choose at least one scope.' : null)}>
        <Label className="field__label">Scopes</Label>
        <Text slot="description" className="field__description">
          The application may get only what it asked for (checked). Uncheck what it should not get.
        </Text>
        <div className="choice-group__grid">
          {SCOPES.map((s) => (
            <CheckboxItem key={s} value={s} isDisabled={!requested.includes(s)}>
              {s}
            </CheckboxItem>
          ))}
        </div>
        <FieldError className="field__error" />
      </CheckboxGroup>
      <BotScopeChoice allBots={allBots} onChange={setAllBots} />
      {allBots ? null : bots.isPending ? <Loading what="the bots" /> : <BotChoice bots={bots.data ?? []} error={bots.error} value={botIds} onChange={setBotIds} />}
      <p className="muted small">You can revoke this connection at any time on the workspace’s Connections page.</p>
      <div className="form__actions">
        <ActionButton type="submit" className="button button--primary" isPending={allow.isPending || allow.isSuccess}>
          Allow
        </ActionButton>
        <DenyButton uid={uid} onLeaving={() => setLeaving(true)} />
      </div>
    </Form>
  );
}

function NoEligibleWorkspace({ uid }: { uid: string }) {
  const [leaving, setLeaving] = useState(false);
  if (leaving) {
    return (
      <SuccessMessage>
        <p>Returning you to the application…</p>
      </SuccessMessage>
    );
  }
  return (
    <>
      <InfoMessage tone="warning">
        <p className="notice__title">You cannot approve this connection.</p>
        <p>Only owners and admins of a workspace can connect applications to it, and you are not an owner or an admin of any workspace. Ask an owner to connect the application, or to make you an admin.</p>
      </InfoMessage>
      <div className="form__actions">
        <DenyButton uid={uid} onLeaving={() => setLeaving(true)} label="Deny" />
      </div>
    </>
  );
}

/** `/oauth/consent/:uid`: the authorization server's interaction, answered by a signed-in owner or admin. */
export function ConsentPage() {
  const { uid = '' } = useParams();
  const location = useLocation();
  const session = useSession();
  const signedIn = Boolean(session.data);
  const interaction = useInteraction(uid, signedIn);
  const signInUrl = `/sign-in?next=${encodeURIComponent(location.pathname + location.search)}`;

  if (session.isPending) return <Loading what="your session" />;
  if (session.isError) {
    return (
      <AuthLayout title={TITLE}>
        <ErrorMessage error={session.error} />
      </AuthLayout>
    );
  }
  if (!session.data) return <Navigate to={signInUrl} replace />;
  if (interaction.isPending) return <Loading what="the request" />;
  if (interaction.isError) {
    if (isUnauthenticated(interaction.error)) return <Navigate to={signInUrl} replace />;
    const gone = interaction.error instanceof ApiError && interaction.error.status === 404;
    const elsewhere = interaction.error instanceof ApiError && interaction.error.status === 403 && interaction.error.code === 'csrf_failed';
    return (
      <AuthLayout title={TITLE} footer={<Link to="/">Go to the console</Link>}>
        {elsewhere ? (
          <InfoMessage tone="warning">
            <p className="notice__title">This request was started in another browser.</p>
            <p>
              A connection can be approved only in the browser where the application started connecting. If you did not start connecting an application yourself just now, someone may have sent
              you this link to get access to your workspace: close this page and approve nothing. Otherwise, start connecting again from the application, in this browser.
            </p>
          </InfoMessage>
        ) : gone ? (
          <InfoMessage tone="warning">
            <p className="notice__title">This request has expired or is unknown.</p>
            <p>Requests to connect an application are valid for a short time and only once. Go back to the application and start connecting again.</p>
          </InfoMessage>
        ) : (
          <ErrorMessage error={interaction.error} title="The request could not be loaded." />
        )}
      </AuthLayout>
    );
  }

  const data = interaction.data;
  const person = session.data.person;
  return (
    <AuthLayout title={TITLE} wide footer={<span className="muted">Signed in as {person.email}</span>}>
      <p className="consent__question">An application asks to use a workspace of yours through the MCP server.</p>
      <ClientSummary interaction={data} />
      <RequestedScopes scopes={data.requested_scopes} />
      {data.workspaces.length === 0 ? <NoEligibleWorkspace uid={uid} /> : <ConsentForm uid={uid} interaction={data} />}
    </AuthLayout>
  );
}

