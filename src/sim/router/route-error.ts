/** The router's own failure, answered as a vLLM-shaped JSON error (with the backend at fault, if one was). */
export class RouteError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly backend?: string,
  ) {
    super(message);
  }
}

export const tooLarge = (): Error => new RouteError('request body too large', 413);
