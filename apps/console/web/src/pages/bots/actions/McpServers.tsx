import { useState } from 'react';
import { Button, Dialog, DialogTrigger, Form, Heading, Modal, ModalOverlay } from 'react-aria-components';
import { type McpServer, type McpTool, useCreateMcpServer, useDeleteMcpServer, useMcpServers, useSyncMcpServer, useUpdateMcpServer } from '../../../api/mcp-servers';
import { ActionButton } from '../../../components/ActionButton';
import { DateTime } from '../../../components/DateTime';
import { ConfirmButton } from '../../../components/Dialogs';
import { CheckboxField, SelectInput, TextInput } from '../../../components/Fields';
import { ErrorMessage, InfoMessage, Loading } from '../../../components/Messages';

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
  const headingId = `mcp-server-${server.id}`;
  return (
    <section className="action-group" aria-labelledby={headingId}>
      <div className="action-group__head">
        <h4 className="action-group__title" id={headingId}>
          {server.name}
        </h4>
        {canManage ? (
          <div className="actions__buttons">
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
        <span className="action-url">{server.url}</span> · {server.auth === 'bearer' ? 'Bearer token (stored, never shown)' : 'No authentication'} · Last synced:{' '}
        <DateTime value={server.last_synced_at} empty="never" />
      </p>
      {server.error ? <InfoMessage tone="warning">Last sync failed: {server.error}</InfoMessage> : null}
      <ErrorMessage error={sync.error} title="The sync did not run." />
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

/** "Add MCP server": name, URL, authentication and a write-only token; adds it, then syncs its tools. */
function AddServerDialog({ workspaceId, botId }: { workspaceId: string; botId: string }) {
  const create = useCreateMcpServer(workspaceId, botId);
  const sync = useSyncMcpServer(workspaceId, botId);
  const [name, setName] = useState('');
  const [url, setUrl] = useState('https://');
  const [auth, setAuth] = useState<'none' | 'bearer'>('bearer');
  const [token, setToken] = useState('');
  const pending = create.isPending || sync.isPending;
  return (
    <DialogTrigger
      onOpenChange={(open) => {
        if (open) {
          create.reset();
          setName('');
          setUrl('https://');
          setAuth('bearer');
          setToken('');
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
                    { name: name.trim(), url: url.trim(), auth, ...(auth === 'bearer' ? { token } : {}) },
                    {
                      onSuccess: (server) => {
                        setToken('');
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
                  onChange={(v) => setAuth(v === 'none' ? 'none' : 'bearer')}
                  options={[
                    { value: 'bearer', label: 'Bearer token' },
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
                <ErrorMessage error={create.error} title="The server was not added." />
                <div className="dialog__actions">
                  <Button className="button button--secondary" onPress={close} isDisabled={pending}>
                    Cancel
                  </Button>
                  <ActionButton type="submit" className="button button--primary" isPending={pending}>
                    Add and sync
                  </ActionButton>
                </div>
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
export function McpServers({ workspaceId, botId, canManage }: { workspaceId: string; botId: string; canManage: boolean }) {
  const servers = useMcpServers(workspaceId, botId);
  return (
    <section className="actions-section action-settings" aria-labelledby="mcp-servers-title">
      <h3 className="action-form__title" id="mcp-servers-title">
        MCP servers
      </h3>
      <p className="field__description">Remote MCP servers whose tools the bot may call, through the installation's outbound policy. At most 5 servers and 20 tools on per bot.</p>
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
