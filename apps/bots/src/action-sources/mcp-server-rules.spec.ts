import 'reflect-metadata';
import { MCP_ENABLED_TOOLS_PER_BOT_MAX, MCP_TOOLS_PER_SERVER_MAX } from '@sa/contracts';
import { applyToolChanges, mergeTools, urlIssues } from './mcp-server-rules';
import type { StoredMcpTool } from './mcp-servers.repository';

const schema = { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] };
const listed = (name: string, over: Record<string, unknown> = {}) => ({ name, description: `${name} does things.`, inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', ...schema }, ...over });
const stored = (name: string, over: Partial<StoredMcpTool> = {}): StoredMcpTool => ({ name, description: 'old', input_schema: schema, confirm: true, verified_only: false, enabled: true, ...over });

describe('mergeTools', () => {
  it('gives new tools the defaults: confirmation unless read-only, every visitor, on; $schema dropped', () => {
    const { tools, skipped } = mergeTools([], [listed('order_status', { annotations: { readOnlyHint: true } }), listed('cancel_order'), listed('odd', { annotations: { readOnlyHint: 'yes' } })], 0);
    expect(skipped).toEqual([]);
    expect(tools.map((t) => [t.name, t.confirm, t.verified_only, t.enabled])).toEqual([
      ['order_status', false, false, true],
      ['cancel_order', true, false, true],
      ['odd', true, false, true],
    ]);
    expect(tools[0]!.input_schema).toEqual(schema);
  });

  it("keeps the owner's flags of known tools, takes the server's new words, and drops tools no longer listed", () => {
    const { tools } = mergeTools([stored('order_status', { confirm: false, verified_only: true, enabled: false }), stored('gone')], [listed('order_status', { description: 'New words.' })], 0);
    expect(tools).toEqual([{ name: 'order_status', description: 'New words.', input_schema: schema, confirm: false, verified_only: true, enabled: false }]);
  });

  it('leaves out, with the reason, unusable names and schemas, repeats and tools past the cap', () => {
    const many = Array.from({ length: MCP_TOOLS_PER_SERVER_MAX + 2 }, (_, i) => listed(`t${i}`));
    const { tools, skipped } = mergeTools([], [listed(''), listed('x'.repeat(200)), listed('bad', { inputSchema: { type: 'string' } }), listed('none', { inputSchema: undefined }), listed('t0'), ...many], 0);
    expect(tools).toHaveLength(MCP_TOOLS_PER_SERVER_MAX);
    expect(skipped.map((s) => s.name)).toEqual(['(no name)', 'x'.repeat(128), 'bad', 'none', 't0', `t${MCP_TOOLS_PER_SERVER_MAX}`, `t${MCP_TOOLS_PER_SERVER_MAX + 1}`]);
    expect(skipped[2]!.reason).toMatch(/input schema is not accepted: .*"type": "object"/);
    expect(skipped[4]!.reason).toMatch(/twice/);
  });

  it(`turns new tools on only while the bot has fewer than ${MCP_ENABLED_TOOLS_PER_BOT_MAX} on`, () => {
    const { tools } = mergeTools([], [listed('a'), listed('b'), listed('c')], MCP_ENABLED_TOOLS_PER_BOT_MAX - 2);
    expect(tools.map((t) => t.enabled)).toEqual([true, true, false]);
  });
});

describe('applyToolChanges', () => {
  it('changes flags by name; an unknown name is an issue; turning on past the cap is over it, turning off never', () => {
    const current = [stored('a'), stored('b', { enabled: false })];
    expect(applyToolChanges(current, [{ name: 'a', confirm: false }], 0)).toMatchObject({ issues: [], overCap: false, tools: [{ name: 'a', confirm: false }, { name: 'b' }] });
    expect(applyToolChanges(current, [{ name: 'zz', enabled: true }], 0).issues[0]).toMatchObject({ path: ['body', 'tools', 0, 'name'] });
    expect(applyToolChanges(current, [{ name: 'b', enabled: true }], MCP_ENABLED_TOOLS_PER_BOT_MAX - 1).overCap).toBe(true);
    expect(applyToolChanges(current, [{ name: 'a', enabled: false }], MCP_ENABLED_TOOLS_PER_BOT_MAX + 5).overCap).toBe(false);
  });
});

describe('urlIssues', () => {
  it('takes https without credentials; http only when allowed', () => {
    expect(urlIssues('https://mcp.example/mcp', false)).toEqual([]);
    expect(urlIssues('http://mcp.example/mcp', false)).toHaveLength(1);
    expect(urlIssues('http://127.0.0.1:3000/mcp', true)).toEqual([]);
    expect(urlIssues('https://user:pw@mcp.example/mcp', false)[0]!.message).toMatch(/user name or password/);
  });
});
