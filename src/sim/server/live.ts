import type { ServerResponse } from 'node:http';
import type { RequestFaults } from '../faults.js';
import type { SimRequest } from '../instance.js';

/** Where a request's output text comes from, one token at a time. */
export interface TokenSource {
  next(): string;
}

/** A generation request the server has admitted and not yet finished. */
export interface LiveRequest {
  id: number;
  requestId: string;
  /** The start of each of its stream's chunks, and what comes before and after a token's text. */
  prefix: string;
  eventHead: string;
  eventTail: string;
  chat: boolean;
  stream: boolean;
  includeUsage: boolean;
  res: ServerResponse;
  promptTokens: number;
  maxTokens: number;
  /** Tokens the request will produce before it stops (≤ maxTokens). */
  plannedTokens: number;
  tokens: TokenSource;
  stops: string[];
  text: string;
  generated: number;
  faults: RequestFaults;
  /** Wall-clock (epoch ms) times, for the ground truth. */
  arrival: number;
  /** When each token was due in the simulation, and when it was written to the socket (epoch ms). */
  simulatedTimes: number[];
  writtenTimes: number[];
  /** Tokens in `held`, not written yet. */
  unwritten: number;
  /** Events not written yet: those of the current pump, or held back by a stall until `stalledUntil`. */
  held: string;
  stalledUntil?: number | undefined;
  stallTimer?: NodeJS.Timeout | undefined;
  /** The last event is queued (with this finish reason): end the response, and log it, once it is written. */
  ending: string | undefined;
  created: number;
  /** A prefill for a remote decode: the response carries `kv_transfer_params`. */
  remoteDecode: boolean;
  /** What the simulation runs (it records the prompt tokens found cached). */
  sim?: SimRequest | undefined;
  /** Admitted prefilled (a decode for a remote prefill): the prefill's request id and the transfer's time. */
  remotePrefill?: { requestId: string | null; transferMs: number } | undefined;
}
