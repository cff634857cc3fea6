import 'reflect-metadata';
import { TOOLS, ToolDef } from './catalogue';
import { ToolServerFactory } from './tool-server';

// The listing (tools/list) is made on first use, not while the server starts
// (docs/decisions/operations.md, "Start time"): start cannot fail or slow down on it.
const factory = (tools: ToolDef[]) => ToolServerFactory.create(null as never, null as never, { startTimeoutMs: 1000, idleTimeoutMs: 1000 }, null as never, tools);

describe('ToolServerFactory.listing', () => {
  it('lists every tool with the input schema generated from its contract, made once', async () => {
    const tools = factory(TOOLS);
    const first = await tools.listing();
    expect(first.map((l) => l.definition.name)).toEqual(TOOLS.map((t) => t.name));
    for (const { definition } of first) expect(definition.inputSchema).toMatchObject({ type: 'object' });
    expect(await tools.listing()).toBe(first);
  });

  it('does not keep a failure: the next call makes the listing again', async () => {
    const base = TOOLS[0];
    const broken: ToolDef = { ...base, input: { ...base.input, describe: { noSuchMember: 'words' } } };
    const tools = factory([broken]); // creating the factory does not make the listing
    await expect(tools.listing()).rejects.toThrow(/has no member noSuchMember/);
    broken.input = base.input;
    expect((await tools.listing()).map((l) => l.definition.name)).toEqual([base.name]);
  });
});
