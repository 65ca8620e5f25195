/**
 * `statecrew/mcp`: Model Context Protocol servers granted to agents and tasks as tools, on the
 * official TypeScript SDK (`@modelcontextprotocol/sdk`, an optional peer dependency).
 */
export { McpResultTooLargeError, McpUnavailableError } from '../errors.js';
export type { McpHttpServer, McpServerOptions, McpServerSpec, McpStdioServer } from './options.js';
export { McpPool, type McpPoolOptions, mcpPool } from './pool.js';
export * from './serve.js';
export { McpServer, mcpServer } from './server.js';
