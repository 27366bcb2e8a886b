/**
 * How every `frontier ci …` decision leaves the process: text for people, JSON for tools, and
 * `key=value` lines appended to the file `GITHUB_OUTPUT` names, for the next workflow step.
 */
import { appendFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';

/** A step output's value: strings as they are, everything else as compact JSON. */
export type OutputValue = string | number | boolean | null | object;

function outputText(value: OutputValue): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/**
 * The GITHUB_OUTPUT lines for `outputs`: `key=value`, or GitHub's heredoc form
 * (`key<<DELIMITER`) for a value that spans lines.
 */
export function githubOutputLines(outputs: Record<string, OutputValue>): string {
  let text = '';
  for (const [key, value] of Object.entries(outputs)) {
    const v = outputText(value);
    if (!v.includes('\n')) {
      text += `${key}=${v}\n`;
      continue;
    }
    let delimiter: string;
    do delimiter = `FRONTIER_${randomBytes(8).toString('hex')}`;
    while (v.includes(delimiter));
    text += `${key}<<${delimiter}\n${v}\n${delimiter}\n`;
  }
  return text;
}

/** Append `outputs` to the GITHUB_OUTPUT file when Actions set one; returns the file written, if any. */
export function writeGithubOutput(
  outputs: Record<string, OutputValue>,
  file: string | undefined = process.env.GITHUB_OUTPUT,
): string | undefined {
  if (!file) return undefined;
  appendFileSync(file, githubOutputLines(outputs));
  return file;
}

/** The outputs in GITHUB_OUTPUT text (`key=value` lines and `key<<DELIMITER` blocks), as Actions reads them. */
export function parseGithubOutput(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2]!, i + 1);
      if (end < 0) throw new Error(`GITHUB_OUTPUT: no closing ${heredoc[2]} for ${heredoc[1]}`);
      out[heredoc[1]!] = lines.slice(i + 1, end).join('\n');
      i = end;
    } else if (line.includes('=')) out[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
  }
  return out;
}
