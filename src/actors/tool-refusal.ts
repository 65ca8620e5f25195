/**
 * Thrown by a tool that refuses a call for a reason the model can act on (an unknown coworker, a
 * delegation too deep): the call's observation is the message, and its record carries `code`. Unlike
 * any other error a tool throws, it is not a fault of the tool.
 */
export class ToolRefusal extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(`${code}: ${message}`);
    this.name = 'ToolRefusal';
  }
}
