/**
 * `samples.csv`, srt-slurm's dcgm-power file (v1 wire contract): its name, columns, schema version
 * and rows, written as Python's csv.writer writes them (QUOTE_MINIMAL, CRLF after every row,
 * floats as Python's repr). The one definition that the DCGM sampler (`dcgm.ts`), the package
 * producer (`src/results/power/package-write.ts`) and the multinode power step's strict reader
 * (`src/results/power/package.ts`, through csvReader) share.
 */
import { floatRepr } from '../pycompat/index.js';

export const SAMPLES_FILENAME = 'samples.csv';
export const SAMPLES_SCHEMA_VERSION = 1;
export const SAMPLES_HEADER = [
  'schema_version',
  'timestamp_unix',
  'scrape_seq',
  'hostname',
  'gpu_index',
  'gpu_uuid',
  'power_w',
] as const;
/** The dcgm-exporter metric the `power_w` column holds. */
export const POWER_METRIC = 'DCGM_FI_DEV_POWER_USAGE';

/** One row of samples.csv (the schema version is implied: always SAMPLES_SCHEMA_VERSION). */
export interface SampleRow {
  timestampUnix: number;
  scrapeSeq: number;
  hostname: string;
  gpuIndex: number;
  gpuUuid: string;
  powerW: number;
}

/** A field as Python's csv.writer (QUOTE_MINIMAL) writes it: quoted, quotes doubled, when it holds `,`, `"`, CR or LF. */
export const csvField = (s: string): string => (/[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s);

/** The file's first line, CRLF-terminated. */
export const SAMPLES_HEADER_LINE = `${SAMPLES_HEADER.join(',')}\r\n`;

/** One samples.csv line (srt-slurm's `SampleRow.to_csv`), CRLF-terminated. */
export function sampleLine(row: SampleRow): string {
  return (
    [
      String(SAMPLES_SCHEMA_VERSION),
      floatRepr(row.timestampUnix),
      String(row.scrapeSeq),
      csvField(row.hostname),
      String(row.gpuIndex),
      csvField(row.gpuUuid),
      floatRepr(row.powerW),
    ].join(',') + '\r\n'
  );
}
