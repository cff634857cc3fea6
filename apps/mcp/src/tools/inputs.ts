import {
  AnalyticsRequest,
  BookingIdRequest,
  ChatMessageRequest,
  ConversationMessagesRequest,
  IngestKbRequest,
  ListBookingsRequest,
  ListBotsRequest,
  ListConversationsRequest,
  ListKbRequest,
  ListLeadsRequest,
  UpdateBookingRequest,
} from '@sa/contracts';
import { ValidationFailed } from '@sa/errors';
import { validateDto } from '@sa/messaging';

/*
 * The tools' inputs: the contract classes of their REST twins (spec part 4), in the same parameter
 * names (chatbotId, sessionId, requestedSlot …), validated by the same rules and described by the
 * same JSON Schemas as the OpenAPI documents. Unknown parameters are refused, so a misspelt one
 * (chatbot_id) is reported instead of silently ignored.
 */

type Contract = new () => object;

export interface ToolInput<C extends Contract = Contract> {
  contract: C;
  /** Words for an agent where the REST API's would not do (descriptions only: rules come from the contract). */
  describe?: Record<string, string>;
}

const input = <C extends Contract>(contract: C, describe?: Record<string, string>): ToolInput<C> => ({ contract, ...(describe ? { describe } : {}) });

export const NoInput = input(ListBotsRequest);
export const ListKnowledgeInput = input(ListKbRequest);
export const AddKnowledgeInput = input(IngestKbRequest);
export const AskBotInput = input(ChatMessageRequest, {
  chatbotId: 'Bot to ask. Required for bot-restricted tokens; otherwise the workspace default bot answers.',
  sessionId: 'Continue this conversation (the session_id of an earlier answer); omit to start a new one.',
});
export const ListConversationsInput = input(ListConversationsRequest);
export const GetConversationInput = input(ConversationMessagesRequest, { sessionId: 'The session_id of a conversation (from list_conversations or ask_bot).' });
export const ListLeadsInput = input(ListLeadsRequest);
export const GetAnalyticsInput = input(AnalyticsRequest);
export const ListBookingsInput = input(ListBookingsRequest);
export const GetBookingInput = input(BookingIdRequest);
export const UpdateBookingInput = input(UpdateBookingRequest);

export type ArgsOf<I extends ToolInput> = InstanceType<I['contract']>;

type JsonSchema = Record<string, unknown> & { properties?: Record<string, Record<string, unknown>> };

/** The input schemas for tools/list: each contract's JSON Schema, with the agents' words. */
export async function inputSchemas(inputs: ToolInput[]): Promise<Map<ToolInput, JsonSchema>> {
  // The OpenAPI bridge (and @nestjs/swagger) only when the listing is first made, not at start.
  const { contractJsonSchemas } = await import('@sa/openapi');
  const schemas = await contractJsonSchemas(inputs.map((i) => i.contract));
  return new Map(
    inputs.map((i) => {
      // The class's own description speaks of its REST route; the tool's description says what it does.
      const { description: _route, ...schema } = schemas.get(i.contract) as JsonSchema;
      const properties = { ...schema.properties };
      for (const [member, description] of Object.entries(i.describe ?? {})) {
        if (!properties[member]) throw new Error(`${i.contract.name} has no member ${member} to describe`);
        properties[member] = { ...properties[member], description };
      }
      return [i, { ...schema, properties }];
    }),
  );
}

/** The arguments of a call, validated as the REST API validates its twin's request; throws ValidationFailed. */
export function parseArgs<I extends ToolInput>(input: I, args: unknown, tool: string): ArgsOf<I> {
  try {
    return validateDto(input.contract, args ?? {}) as ArgsOf<I>;
  } catch (err) {
    if (err instanceof ValidationFailed) throw new ValidationFailed(err.issues, `Invalid arguments for ${tool}`);
    throw err;
  }
}
