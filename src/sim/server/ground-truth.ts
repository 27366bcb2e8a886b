import { createWriteStream } from 'node:fs';
import type { WriteStream } from 'node:fs';
import type { LiveRequest } from './live.js';
import type { SimRole } from './options.js';

/** The per-request ground truth, one JSON line per request as it ends; does nothing without a file. */
export class GroundTruthLog {
  private readonly out: WriteStream | undefined;
  /** Whether token times need keeping: only the log reads them. */
  readonly recording: boolean;

  constructor(
    file: string | undefined,
    private readonly role: SimRole,
    private readonly speed: number,
  ) {
    this.out = file ? createWriteStream(file, { flags: 'a' }) : undefined;
    this.recording = this.out !== undefined;
  }

  record(l: LiveRequest, finish: string | null, status = 'ok'): void {
    if (!this.out) return;
    const line = {
      id: l.requestId,
      status,
      arrival: l.arrival,
      first_token: l.writtenTimes[0] ?? l.simulatedTimes[0] ?? null,
      // What a client can observe: when each token went out (streams), else when it was produced.
      token_times: l.stream ? l.writtenTimes : l.simulatedTimes,
      simulated_times: l.simulatedTimes,
      prompt_tokens: l.promptTokens,
      completion_tokens: l.generated,
      finish_reason: finish,
      role: this.role,
      // A prefill for a remote decode; a decode admitted prefilled, with the prefill's request id
      // and the KV transfer's time (wall-clock ms, as the other times: simulated ms / speed).
      remote_decode: l.remoteDecode,
      remote_prefill: l.remotePrefill !== undefined,
      remote_request_id: l.remotePrefill?.requestId ?? null,
      kv_transfer_ms: l.remotePrefill ? l.remotePrefill.transferMs / this.speed : null,
    };
    this.out.write(`${JSON.stringify(line)}\n`);
  }

  /** Resolves once every line is written. */
  close(): Promise<void> {
    const out = this.out;
    if (!out) return Promise.resolve();
    return new Promise<void>((resolve) => out.end(resolve));
  }
}
