/**
 * An incremental Server-Sent Events splitter for streamed completions: bytes arrive in TCP-sized
 * pieces that cut events anywhere (even inside a CRLF), several events can share one piece, and
 * an event's data may span several `data:` lines. `push` hands each complete event's data to
 * `onData`; comments and non-data fields are skipped.
 */
export class SseSplitter {
  private carry = '';

  push(chunk: string, onData: (data: string) => void): void {
    let text = this.carry === '' ? chunk : this.carry + chunk;
    if (text.includes('\r')) {
      // Keep a trailing CR: the LF that completes it may be in the next piece.
      const tail = text.endsWith('\r') ? '\r' : '';
      text = text.slice(0, text.length - tail.length).replace(/\r\n?/g, '\n') + tail;
    }
    let start = 0;
    for (;;) {
      const end = text.indexOf('\n\n', start);
      if (end < 0) break;
      this.event(text, start, end, onData);
      start = end + 2;
    }
    this.carry = start === 0 ? text : text.slice(start);
  }

  /** What is left when the stream ends (an event without its blank line, kept as the server sent it). */
  end(onData: (data: string) => void): void {
    const rest = this.carry.replace(/\r$/, '');
    this.carry = '';
    if (rest.trim() !== '') this.event(rest, 0, rest.length, onData);
  }

  private event(text: string, start: number, end: number, onData: (data: string) => void): void {
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
