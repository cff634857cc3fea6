import { useState } from 'react';
import { Button, Dialog, DialogTrigger, Form, Heading, Modal, ModalOverlay } from 'react-aria-components';
import { useSearchParams } from 'react-router';
import {
  type McpServer,
  type McpTool,
  useCreateMcpServer,
  useDeleteMcpServer,
  useMcpServers,
  useStartMcpOAuth,
  useSyncMcpServer,
  useUpdateMcpServer,
} from '../../../api/mcp-servers';
import { ActionButton } from '../../../components/ActionButton';
import { DateTime } from '../../../components/DateTime';
import { ConfirmButton, FormDialogActions } from '../../../components/Dialogs';
import { CheckboxField, SelectInput, TextInput } from '../../../components/Fields';
import { ErrorMessage, InfoMessage, Loading, SuccessMessage } from '../../../components/Messages';

/** The host of an address, for people. */
function hostOf(url: string | null): string {
  try {
    return url ? new URL(url).host : '';
  } catch {
    return url ?? '';
  }
}

/** How the bot signs in, for people: never a token. */
function authText(server: McpServer): string {
  if (server.auth === 'bearer') return 'Bearer token (stored, never shown)';
  if (server.auth === 'none') return 'No authentication';
  const at = server.oauth?.authorization_server ? ` at ${hostOf(server.oauth.authorization_server)}` : '';
  return server.has_token ? `OAuth: connected${at} (the token renews itself)` : 'OAuth: not connected';
}

/** One flag of one tool: a checkbox under its column's heading, named for screen readers by the flag and the tool ("Confirm shop_order_status"). */
function ToolFlag({ label, tool, isSelected, isDisabled, onChange }: { label: string; tool: string; isSelected: boolean; isDisabled: boolean; onChange: (v: boolean) => void }) {
  return (
    <CheckboxField isSelected={isSelected} isDisabled={isDisabled} onChange={onChange}>
      <span className="visually-hidden">
        {label} {tool}
      </span>
    </CheckboxField>
  );
}

/** The server's tools with their flags; owners and admins switch them (each switch saves at once). */
function ToolsTable({ workspaceId, botId, server, canManage }: { workspaceId: string; botId: string; server: McpServer; canManage: boolean }) {
  const update = useUpdateMcpServer(workspaceId, botId);
  const set = (tool: McpTool, change: Partial<Pick<McpTool, 'confirm' | 'verified_only' | 'enabled'>>) => update.mutate({ serverId: server.id, body: { tools: [{ name: tool.name, ...change }] } });
  if (server.tools.length === 0) return <p className="empty">{server.last_synced_at ? 'The server lists no tools we can use.' : 'No tools yet: sync to list them.'}</p>;
  return (
    <>
      <ErrorMessage error={update.error} title="The change was not saved." />
      <div className="table-wrap" tabIndex={0} role="region" aria-label={`Tools of ${server.name}`}>
        <table className="table table--actions">
          <thead>
            <tr>
              <th scope="col">Tool</th>
              <th scope="col">Description</th>
              <th scope="col">Confirm</th>
              <th scope="col">Verified only</th>
              <th scope="col">On</th>
            </tr>
          </thead>
          <tbody>
            {server.tools.map((t) => (
              <tr key={t.name} className={t.enabled ? undefined : 'table__row--inactive'}>
                <th scope="row" className="table__name">
                  {/* The server's words: rendered as text, never as HTML. */}
                  <span className="action-url">{t.model_name}</span>
                </th>
                <td>{t.description}</td>
                <td>
                  <ToolFlag label="Confirm" tool={t.model_name} isSelected={t.confirm} isDisabled={!canManage || update.isPending} onChange={(v) => set(t, { confirm: v })} />
                </td>
                <td>
                  <ToolFlag label="Verified only" tool={t.model_name} isSelected={t.verified_only} isDisabled={!canManage || update.isPending} onChange={(v) => set(t, { verified_only: v })} />
                </td>
                <td>
                  <ToolFlag label="On" tool={t.model_name} isSelected={t.enabled} isDisabled={!canManage || update.isPending} onChange={(v) => set(t, { enabled: v })} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** One server: its address and authentication, the last sync (or why it failed), its tools; Sync tools and Delete for owners and admins. */
function ServerCard({ workspaceId, botId, server, canManage }: { workspaceId: string; botId: string; server: McpServer; canManage: boolean }) {
  const sync = useSyncMcpServer(workspaceId, botId);
  const remove = useDeleteMcpServer(workspaceId, botId);
  const connect = useStartMcpOAuth(workspaceId, botId);
  const headingId = `mcp-server-${server.id}`;
  return (
    <section className="action-group" aria-labelledby={headingId}>
      <div className="action-group__head">
        <h4 className="action-group__title" id={headingId}>
          {server.name}
        </h4>
        {canManage ? (
          <div className="actions__buttons">
            {server.auth === 'oauth' ? (
              // Leaves the console for the server's authorization page; the callback brings the person back here.
              <ActionButton
                className={`button ${server.has_token ? 'button--secondary' : 'button--primary'} button--small`}
                aria-describedby={headingId}
                isPending={connect.isPending || connect.isSuccess}
                onPress={() => connect.mutate(server.id)}
              >
                {server.has_token ? 'Reconnect' : 'Connect'}
              </ActionButton>
            ) : null}
            <ActionButton className="button button--secondary button--small" aria-describedby={headingId} isPending={sync.isPending} onPress={() => sync.mutate(server.id)}>
              Sync tools
            </ActionButton>
            <ConfirmButton trigger="Delete" title={`Delete the MCP server “${server.name}”?`} describedBy={headingId} onConfirm={() => remove.mutateAsync(server.id)}>
              <p>The bot no longer offers its tools, from its next turn. Its stored token is deleted with it.</p>
            </ConfirmButton>
          </div>
        ) : null}
      </div>
      <p className="field__description">
        <span className="action-url">{server.url}</span> · {authText(server)} · Last synced:{' '}
        <DateTime value={server.last_synced_at} empty="never" />
      </p>
      {server.error ? <InfoMessage tone="warning">Last sync failed: {server.error}</InfoMessage> : null}
      <ErrorMessage error={sync.error} title="The sync did not run." />
      <ErrorMessage error={connect.error} title="The connection could not be started." />
      <ToolsTable workspaceId={workspaceId} botId={botId} server={server} canManage={canManage} />
      {server.skipped.length > 0 ? (
        <details>
          <summary>{server.skipped.length === 1 ? '1 tool left out' : `${server.skipped.length} tools left out`}</summary>
          <ul>
            {server.skipped.map((s, i) => (
              <li key={i}>
                <span className="action-url">{s.name}</span>: {s.reason}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </section>
  );
}

type AuthChoice = 'none' | 'bearer' | 'oauth';

/**
 * "Add MCP server": name, URL, authentication (a write-only token; or OAuth, with an optional
 * client id, secret and scope); adds it, then syncs its tools, or with OAuth goes to Connect.
 */
function AddServerDialog({ workspaceId, botId }: { workspaceId: string; botId: string }) {
  const create = useCreateMcpServer(workspaceId, botId);
  const sync = useSyncMcpServer(workspaceId, botId);
  const connect = useStartMcpOAuth(workspaceId, botId);
  const [name, setName] = useState('');
  const [url, setUrl] = useState('https://');
  const [auth, setAuth] = useState<AuthChoice>('bearer');
  const [token, setToken] = useState('');
  const [clientId, setClientId] = useState('');
  const [clientSecret, setClientSecret] = useState('');
  const [scope, setScope] = useState('');
  const pending = create.isPending || sync.isPending || connect.isPending || connect.isSuccess;
  const oauth = () => ({
    ...(clientId.trim() ? { oauth_client_id: clientId.trim() } : {}),
    ...(clientId.trim() && clientSecret ? { oauth_client_secret: clientSecret } : {}),
    ...(scope.trim() ? { oauth_scope: scope.trim() } : {}),
  });
  return (
    <DialogTrigger
      onOpenChange={(open) => {
        if (open) {
          create.reset();
          setName('');
          setUrl('https://');
          setAuth('bearer');
          setToken('');
          setClientId('');
          setClientSecret('');
          setScope('');
          connect.reset();
        }
      }}
    >
      <Button className="button button--primary">Add MCP server</Button>
      <ModalOverlay className="modal-overlay" isDismissable={!pending}>
        <Modal className="modal modal--wide">
          <Dialog className="dialog">
            {({ close }) => (
              <Form
                className="form form--inline"
                onSubmit={(e) => {
                  e.preventDefault();
                  create.mutate(
                    { name: name.trim(), url: url.trim(), auth, ...(auth === 'bearer' ? { token } : {}), ...(auth === 'oauth' ? oauth() : {}) },
                    {
                      onSuccess: (server) => {
                        setToken('');
                        setClientSecret('');
                        // OAuth: on to the server's authorization page (the dialog stays until the browser leaves).
                        if (server.auth === 'oauth') return connect.mutate(server.id);
                        sync.mutate(server.id);
                        close();
                      },
                    },
                  );
                }}
              >
                <Heading slot="title" className="dialog__title">
                  Add MCP server
                </Heading>
                <p>Its tools become actions of the bot, each with the same flags as an action. New tools ask the visitor to confirm unless the server marks them read-only.</p>
                <TextInput
                  label="Name"
                  name="name"
                  isRequired
                  value={name}
                  onChange={setName}
                  description="1 to 20 letters, digits or -, starting with a letter. The model sees its tools as name_tool."
                />
                <TextInput label="URL" name="url" type="url" isRequired value={url} onChange={setUrl} description="The server's MCP endpoint, https only." />
                <SelectInput
                  label="Authentication"
                  value={auth}
                  onChange={(v) => setAuth(v === 'none' || v === 'oauth' ? v : 'bearer')}
                  options={[
                    { value: 'bearer', label: 'Bearer token' },
                    { value: 'oauth', label: 'OAuth (sign in at the server)' },
                    { value: 'none', label: 'None' },
                  ]}
                />
                {auth === 'bearer' ? (
                  <TextInput
                    label="Token"
                    name="token"
                    type="password"
                    autoComplete="off"
                    isRequired
                    value={token}
                    onChange={setToken}
                    description="Sent as Authorization: Bearer …. Stored encrypted and never shown again."
                  />
                ) : null}
                {auth === 'oauth' ? (
                  <>
                    <p className="field__description">
                      After adding, you go to the server&apos;s sign-in page to allow the bot, then come back here. The bot registers itself there unless you give a client id.
                    </p>
                    <TextInput
                      label="Client ID"
                      name="oauth_client_id"
                      autoComplete="off"
                      value={clientId}
                      onChange={setClientId}
                      description={`Optional: a client registered for this bot, with the redirect URI ${window.location.origin}/api/oauth/mcp-callback.`}
                    />
                    {clientId.trim() ? (
                      <TextInput
                        label="Client secret"
                        name="oauth_client_secret"
                        type="password"
                        autoComplete="off"
                        value={clientSecret}
                        onChange={setClientSecret}
                        description="Optional: only for a confidential client. Stored encrypted and never shown again."
                      />
                    ) : null}
                    <TextInput label="Scope" name="oauth_scope" autoComplete="off" value={scope} onChange={setScope} description="Optional: the scopes to ask for, separated by spaces. Empty: what the server offers." />
                  </>
                ) : null}
                <ErrorMessage error={create.error} title="The server was not added." />
                <ErrorMessage error={connect.error} title="The server was added, but the connection could not be started: use Connect on it." />
                <FormDialogActions onCancel={close} pending={pending} submit={auth === 'oauth' ? 'Add and connect' : 'Add and sync'} />
              </Form>
            )}
          </Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  );
}

/**
 * The bot's remote MCP servers (issue 34, item 3), in its Actions section: each server's tools
 * are actions of the bot. Owners and admins add, sync, switch flags and delete; members read.
 */
/** What the console's OAuth callback says when it sends the person back here (`?mcp_oauth=…`). */
function ConnectOutcome({ servers }: { servers: McpServer[] }) {
  const [params] = useSearchParams();
  const outcome = params.get('mcp_oauth');
  if (!outcome) return null;
  const name = servers.find((s) => s.id === params.get('mcp_server'))?.name ?? 'the MCP server';
  if (outcome === 'connected') return <SuccessMessage>Connected to {name}: its tools are listed below.</SuccessMessage>;
  return (
    <InfoMessage tone="warning">
      {/* The authorization server's reason, through our words: rendered as text. */}
      Not connected to {name}: {params.get('mcp_oauth_message') ?? 'the authorization did not finish'}.
    </InfoMessage>
  );
}

export function McpServers({ workspaceId, botId, canManage }: { workspaceId: string; botId: string; canManage: boolean }) {
  const servers = useMcpServers(workspaceId, botId);
  return (
    <section className="actions-section action-settings" aria-labelledby="mcp-servers-title">
      <h3 className="action-form__title" id="mcp-servers-title">
        MCP servers
      </h3>
      <p className="field__description">Remote MCP servers whose tools the bot may call, through the installation's outbound policy. At most 5 servers and 20 tools on per bot.</p>
      {servers.data ? <ConnectOutcome servers={servers.data} /> : null}
      {servers.isPending ? (
        <Loading what="the MCP servers" />
      ) : servers.isError ? (
        <ErrorMessage error={servers.error} title="The MCP servers could not be loaded." />
      ) : servers.data.length === 0 ? (
        <p className="empty">No MCP servers yet.</p>
      ) : (
        servers.data.map((s) => <ServerCard key={s.id} workspaceId={workspaceId} botId={botId} server={s} canManage={canManage} />)
      )}
      {canManage ? (
        <div>
          <AddServerDialog workspaceId={workspaceId} botId={botId} />
        </div>
      ) : null}
    </section>
  );
}
