export { ActionInputError } from './action-input-error';
export { validateParametersSchema, validateActionInput } from './parameters-schema';
export { buildActionRequest, validateActionUrl } from './action-request';
export type { ActionHttpMethod, ActionRequestSpec, ActionRequest } from './action-request';
export { ACTION_TIMEOUT_MS, ACTION_MAX_RESPONSE_BYTES, ACTION_MAX_RESULT_CHARS, executeAction } from './execute-action';
export type { ActionCallError, ActionCallResult, ExecuteActionOptions } from './execute-action';
export { McpConnectionError, listMcpTools, mcpConnectionError, mcpResultText, withMcpClient, withMcpExchange } from './mcp-client';
export type { McpConnectOptions, McpConnectionErrorCode, McpExchangeOptions } from './mcp-client';
