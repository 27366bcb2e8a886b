/**
 * An incremental Server-Sent Events splitter for streamed completions: bytes arrive in TCP-sized
 * pieces that cut events anywhere (even inside a CRLF), several events can share one piece, and
 * an event's data may span several `data:` lines. `push` hands each complete event's data to
 * `onData`; comments and non-data fields are skipped.
 *
 * An event still incomplete is kept as its pieces, joined once when its end arrives, and each
 * piece is searched once: reading an event costs time linear in its size however it is cut.
 * An event may grow to `maxEventChars`; beyond, `push` throws an EventTooLarge (memory stays
 * bounded whatever a server sends).
 */

/** The largest event accepted, in characters: token chunks are well under a kilobyte; a whole echoed 1M-token prompt is ~4 M. */
export const MAX_EVENT_CHARS = 16 * 1024 * 1024;

export class EventTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`an event grew past ${limit / (1024 * 1024)} Mi characters without ending`);
  }
}

export class SseSplitter {
  /** The incomplete event's pieces (line endings already LF), and their total length. */
  private pieces: string[] = [];
  private pending = 0;
  /** A CR that ended the last piece: the LF that completes it may start the next. */
  private cr = false;

  constructor(private readonly maxEventChars = MAX_EVENT_CHARS) {}

  push(chunk: string, onData: (data: string) => void): void {
    if (this.cr) {
      chunk = `\r${chunk}`;
      this.cr = false;
    }
    if (chunk.includes('\r')) {
      if (chunk.endsWith('\r')) {
        this.cr = true;
        chunk = chunk.slice(0, -1);
      }
      chunk = chunk.replace(/\r\n?/g, '\n');
    }
    if (chunk === '') return;
    let text = chunk;
    if (this.pending > 0) {
      // Where the incomplete event ends, if in this piece: the blank line may straddle the pieces.
      const last = this.pieces[this.pieces.length - 1]!;
      const straddles = last.endsWith('\n') && chunk.startsWith('\n');
      if (!straddles && chunk.indexOf('\n\n') < 0) return this.keep(chunk);
      this.pieces.push(chunk);
      text = this.pieces.join('');
      this.pieces = [];
      this.pending = 0;
    }
    let start = 0;
    for (;;) {
      const end = text.indexOf('\n\n', start);
      if (end < 0) break;
      this.event(text, start, end, onData);
      start = end + 2;
    }
    if (start < text.length) this.keep(start === 0 ? text : text.slice(start));
  }

  /** What is left when the stream ends (an event without its blank line, kept as the server sent it). */
  end(onData: (data: string) => void): void {
    const rest = this.pieces.join('');
    this.pieces = [];
    this.pending = 0;
    this.cr = false;
    if (rest.trim() !== '') this.event(rest, 0, rest.length, onData);
  }

  private keep(piece: string): void {
    this.pending += piece.length;
    if (this.pending > this.maxEventChars) {
      this.pieces = [];
      this.pending = 0;
      throw new EventTooLarge(this.maxEventChars);
    }
    this.pieces.push(piece);
  }

  private event(text: string, start: number, end: number, onData: (data: string) => void): void {
    if (end - start > this.maxEventChars) throw new EventTooLarge(this.maxEventChars);
    // The common case, a single line, without splitting.
    const newline = text.indexOf('\n', start);
    if (newline < 0 || newline >= end) {
      if (text.startsWith('data: ', start)) onData(text.slice(start + 6, end));
      else if (text.startsWith('data:', start)) onData(text.slice(start + 5, end));
      return;
    }
    let data: string | undefined;
    for (const line of text.slice(start, end).split('\n')) {
      if (!line.startsWith('data:')) continue; // comments (`:`), event:, id:, retry:
      const value = line.startsWith('data: ') ? line.slice(6) : line.slice(5);
      data = data === undefined ? value : `${data}\n${value}`;
    }
    if (data !== undefined) onData(data);
  }
}
