import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequest,
  CallToolRequestSchema,
  CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  ServerNotification,
  ServerRequest,
  Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { NatsConnection } from 'nats';
import type { Logger } from 'pino';
import { z } from 'zod';
import { enforceDeclaredBotAccess } from '@sa/bot-access';
import { CallerContext, ChatRequest, ValidationIssue, isErrorCode, plainJsonIssue } from '@sa/contracts';
import { ChatTurnTimeouts, StreamIdle, startChatTurn } from '@sa/edge';
import { DomainError, ServiceUnavailable, httpStatusOf } from '@sa/errors';
import { RpcClient } from '@sa/messaging';
import { counter } from '@sa/metrics';
import { TOOLS, ToolDef, ToolEnv } from './catalogue';
import { inputSchemas, parseArgs } from './inputs';
import type { AskBotAnswer } from './views';

export const SERVER_INFO = { name: 'support-agent', title: 'Support-agent service', version: '1.0.1' };

const INSTRUCTIONS = [
  "Tools for one workspace of the support-agent service: its bots, their knowledge base, chat, conversations, leads, analytics and appointment bookings.",
  'Start with list_bots to learn the bot ids; tools take a bot id as chatbotId. A token restricted to specific bots must always pass one of its bots.',
  'You only see the tools your token has the scopes for. Errors come back as tool results with isError set and a message saying what to change (a tool name that does not exist at all is a JSON-RPC error, -32602).',
].join(' ');

/** JSON Schema of a zod schema (the outputs) for tools/list (dialect 2020-12, the MCP default, so $schema is left out). */
function jsonSchema(schema: z.ZodType): Tool['outputSchema'] {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return rest as Tool['inputSchema'];
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

type Listing = { tool: ToolDef; definition: Tool };

async function makeListing(tools: ToolDef[]): Promise<Listing[]> {
  const inputs = await inputSchemas(tools.map((t) => t.input));
  return tools.map((tool) => ({
    tool,
    definition: {
      name: tool.name,
      title: tool.title,
      description: `${tool.description} Needs the ${tool.scope} scope.`,
      inputSchema: inputs.get(tool.input) as Tool['inputSchema'],
      outputSchema: jsonSchema(tool.output),
      annotations: { title: tool.title, ...tool.annotations },
    },
  }));
}

const toolCalls = counter({ name: 'sa_mcp_tool_calls_total', help: 'MCP tool calls, by tool and outcome (ok or the error code)', labelNames: ['tool', 'outcome'] as const });

/**
 * Makes the MCP server for one HTTP request (stateless Streamable HTTP: every POST carries its
 * own token, so any replica can answer it). tools/list shows only the tools the token's scopes
 * allow; tools/call checks the scope again, validates the arguments, enforces the tool's declared
 * bot access (libs/bot-access) and turns every failure into a tool result with isError set. Only
 * a name that is no tool at all is a protocol error: JSON-RPC -32602 (invalid params), as the MCP
 * specification says for unknown tools. A known tool the token's scopes hide stays a tool result
 * (insufficient_scope), which tells the agent what to ask for.
 */
export class ToolServerFactory {
  private listed?: Promise<Listing[]>;

  private constructor(
    private readonly rpc: RpcClient,
    private readonly nc: NatsConnection,
    private readonly chatTimeouts: ChatTurnTimeouts,
    private readonly logger: Logger,
    private readonly tools: ToolDef[],
  ) {}

  static create(rpc: RpcClient, nc: NatsConnection, chatTimeouts: ChatTurnTimeouts, logger: Logger, tools: ToolDef[] = TOOLS): ToolServerFactory {
    return new ToolServerFactory(rpc, nc, chatTimeouts, logger, tools);
  }

  /**
   * The tools' definitions for tools/list, made once on first use: their input schemas are
   * generated from the contracts through @nestjs/swagger, a tenth of the server's start time, so
   * main.ts calls this once the server is listening rather than before it is ready
   * (docs/decisions/operations.md, "Start time"). A failure is not kept: the next call tries again.
   */
  listing(): Promise<Listing[]> {
    this.listed ??= makeListing(this.tools).catch((err: unknown) => {
      this.listed = undefined;
      throw err;
    });
    return this.listed;
  }

  create(caller: CallerContext): Server {
    const server = new Server(SERVER_INFO, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: (await this.listing()).filter(({ tool }) => caller.scopes.includes(tool.scope)).map(({ definition }) => definition),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const tool = this.tools.find((t) => t.name === request.params.name);
      if (!tool) {
        toolCalls.inc({ tool: 'unknown', outcome: 'unknown_tool' });
        const name = request.params.name.length > 100 ? `${request.params.name.slice(0, 100)}…` : request.params.name;
        throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}. Call tools/list for the tools this token may use.`);
      }
      const result = await this.call(caller, tool, request, extra);
      const error = result._meta?.['support-agent/error'] as { code?: string } | undefined;
      toolCalls.inc({ tool: tool.name, outcome: result.isError ? (error?.code ?? 'error') : 'ok' });
      return result;
    });
    return server;
  }

  private async call(caller: CallerContext, tool: ToolDef, request: CallToolRequest, extra: Extra): Promise<CallToolResult> {
    if (!caller.scopes.includes(tool.scope)) {
      return domainToolError(new DomainError('insufficient_scope', `This token lacks the ${tool.scope} scope that ${tool.name} needs`, { required_scope: tool.scope }));
    }
    // What no payload may hold (NUL, unpaired surrogates, Object.prototype names), as at REST.
    const unsafe = plainJsonIssue(request.params.arguments ?? {});
    if (unsafe) return domainToolError(new DomainError('validation_failed', `Invalid arguments for ${tool.name}`, { issues: [unsafe] }));
    const env: ToolEnv = { caller, rpc: this.rpc, askBot: (args) => this.askBot(caller, args, request, extra) };
    try {
      const args = parseArgs(tool.input, request.params.arguments, tool.name);
      // Bot access after validation, as at REST: the tool's declared mode on its arguments.
      enforceDeclaredBotAccess(caller, tool.bots, args);
      const result = (await tool.run(args, env)) as Record<string, unknown>;
      return { content: [{ type: 'text', text: tool.text(result, args) }], structuredContent: result };
    } catch (err) {
      if (err instanceof DomainError) return domainToolError(err);
      this.logger.error({ err: err instanceof Error ? { message: err.message, stack: err.stack } : err, request_id: caller.requestId, tool: tool.name }, 'tool failed');
      return toolError(`Internal error (request id ${caller.requestId}); try again later.`, { status: 500, code: 'internal_error' });
    }
  }

  /**
   * ask_bot: one chat turn on the `mcp` channel. Each part of the answer is also sent as a
   * progress notification (progress = characters so far, message = the new text) when the client
   * asked for progress; a client that goes away cancels the generation. A turn that breaks off
   * (or is not saved) is an error result, never a partial answer presented as complete.
   */
  private async askBot(caller: CallerContext, args: ChatRequest, request: CallToolRequest, extra: Extra): Promise<AskBotAnswer> {
    const turn = await startChatTurn(this.rpc, this.nc, caller, args, 'mcp', this.chatTimeouts);
    const progressToken = request.params._meta?.progressToken;
    const onAbort = () => turn.cancel();
    extra.signal.addEventListener('abort', onAbort, { once: true });
    let answer = '';
    try {
      for await (const event of turn.events()) {
        if (event.type === 'delta') {
          answer += event.text;
          if (progressToken !== undefined) {
            await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: answer.length, message: event.text } });
          }
        } else if (event.type === 'end') {
          return {
            answer,
            session_id: turn.started.session_id,
            chatbot_id: turn.started.chatbot_id,
            language: turn.started.language,
            source_urls: event.source_urls,
            unanswered: event.unanswered,
            assistant_message_id: event.assistant_message_id,
          };
        } else if (event.type === 'action') {
          continue;
        } else if (event.type === 'held') {
          throw new DomainError('conflict', `A person (${event.taken_by}) has taken this conversation over: the message was stored, the bot does not answer until it is handed back.`, {
            session_id: turn.started.session_id,
            stored: true,
          });
        } else {
          // Never a partial answer presented as complete: an error result, saying what was kept.
          const partial = answer ? ` What was produced so far: "${answer}".` : '';
          const kept = event.stored ? ` That much is stored in session ${turn.started.session_id}.` : '';
          throw new DomainError(isErrorCode(event.code) ? event.code : 'service_unavailable', `The answer broke off: ${event.message}.${partial}${kept}`, {
            session_id: turn.started.session_id,
            stored: event.stored,
          });
        }
      }
      throw new ServiceUnavailable('chat', extra.signal.aborted ? 'the request was cancelled' : 'the answer stream ended early');
    } catch (err) {
      if (err instanceof StreamIdle) throw new ServiceUnavailable('chat', err.message);
      throw err;
    } finally {
      extra.signal.removeEventListener('abort', onAbort);
      turn.close();
    }
  }
}

const HINTS: Partial<Record<string, string>> = {
  unauthorized: 'Use a valid, unexpired API token.',
  api_locked: 'The workspace needs live API access (an active Growth trial, a Growth or Scale plan, or an enterprise contract with API access).',
  insufficient_scope: 'Ask a workspace owner or admin for a token with this scope.',
  bot_access_denied: 'This token is limited to specific bots: pass one of them as chatbotId (list_bots shows them).',
  quota_exhausted: 'The plan quota is used up; it renews with the next period or a larger plan.',
  plan_capacity_exhausted: 'The plan has no capacity left for this.',
  not_found: 'Check the id (list tools show the ids this token can see).',
  conflict: 'Fetch the current state (get_booking) before trying another action.',
  rate_limited: 'Wait and try again.',
  service_unavailable: 'Try again shortly.',
};

function toolError(text: string, error?: Record<string, unknown>): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }], ...(error ? { _meta: { 'support-agent/error': error } } : {}) };
}

/** A service's error as a tool result: the message, the REST status and code, and what to do next. */
export function domainToolError(err: DomainError): CallToolResult {
  const status = httpStatusOf(err.code);
  const details = Object.entries(err.details)
    .filter(([k]) => k !== 'issues')
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`);
  const issues = (err.details['issues'] as ValidationIssue[] | undefined)?.map(issueText) ?? [];
  const text = [`${err.message} (${status} ${err.code}).`, ...issues, ...details, HINTS[err.code] ?? ''].filter(Boolean).join('\n');
  return toolError(text, { status, code: err.code, message: err.message, ...err.details });
}

/** `path: message`, without the message repeating the member's name ("id: must be a UUID", not "id: id must be a UUID"). */
export function issueText(issue: ValidationIssue): string {
  const where = issue.path.join('.') || '(arguments)';
  const member = String(issue.path[issue.path.length - 1] ?? '');
  const message = member && issue.message.startsWith(`${member} `) ? issue.message.slice(member.length + 1).replace(/^is /, '') : issue.message;
  return `${where}: ${message}`;
}
