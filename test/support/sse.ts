// Reading a text/event-stream body as a client sees it: events split at blank lines as the bytes arrive, each
// with the time its last chunk came in.

export interface SseEvent {
  /** The event's text after `data: `, or the whole event when it does not start so (a malformed one). */
  data: string;
  /** Whether the event started with `data: `. */
  isData: boolean;
  /** performance.now() when the chunk that completed the event arrived. */
  at: number;
}

/**
 * Read `body` to its end, calling `onEvent` for each event; returns what followed the last blank line (nothing,
 * from a well-formed stream). A body that breaks off rejects, after the events before the break.
 */
export async function readSse(body: AsyncIterable<Uint8Array>, onEvent: (event: SseEvent) => void): Promise<string> {
  const decoder = new TextDecoder();
  let carry = '';
  for await (const chunk of body) {
    const at = performance.now();
    carry += decoder.decode(chunk, { stream: true });
    let cut: number;
    while ((cut = carry.indexOf('\n\n')) >= 0) {
      const event = carry.slice(0, cut);
      carry = carry.slice(cut + 2);
      const isData = event.startsWith('data: ');
      onEvent({ data: isData ? event.slice('data: '.length) : event, isData, at });
    }
  }
  return carry;
}
