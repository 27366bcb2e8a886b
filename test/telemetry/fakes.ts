import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const tempDir = (prefix = 'frontier-telemetry-'): string => mkdtempSync(join(tmpdir(), prefix));

function script(dir: string, name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/bash\n${body}`);
  chmodSync(path, 0o755);
  return path;
}

export const NVIDIA_HEADER =
  'timestamp, index, power.draw [W], temperature.gpu, clocks.current.sm [MHz], clocks.current.memory [MHz], utilization.gpu [%], utilization.memory [%]';

/**
 * A fake nvidia-smi printing the real CSV (units in the header and cells, `YYYY/MM/DD
 * HH:MM:SS.fff` local timestamps, one row per GPU per sample). Its argv goes to `$FAKE_LOG`.
 * FAKE_DIE_AFTER=N: exit 3 after N samples. FAKE_TRUNCATE=1: on SIGTERM, print half a row.
 * The one-shot (`--format=csv,noheader`) sample draws 999.00 W, so tests can find it.
 */
export function fakeNvidiaSmi(dir: string): string {
  return script(
    dir,
    'nvidia-smi',
    `echo "nvidia-smi $*" >> "\${FAKE_LOG:-/dev/null}"
fmt=""; ms=1000; prev=""
for a in "$@"; do
  case "$a" in --format=*) fmt="\${a#--format=}" ;; esac
  [[ "$prev" == "-lms" ]] && ms="$a"
  prev="$a"
done
ts() { date '+%Y/%m/%d %H:%M:%S.%3N'; }
rows() { local t; t=$(ts); for i in 0 1; do echo "$t, $i, $1 W, 45, 1980 MHz, 2619 MHz, 87 %, 45 %"; done; }
if [[ "$fmt" == "csv,noheader" ]]; then rows 999.00; exit 0; fi
if [[ -n "$FAKE_TRUNCATE" ]]; then trap 'printf "%s, 0, 41" "$(ts)"; exit 0' TERM; fi
echo "${NVIDIA_HEADER}"
n=0
while true; do
  rows "41$((n % 10)).25"
  n=$((n + 1))
  if [[ -n "$FAKE_DIE_AFTER" && $n -ge $FAKE_DIE_AFTER ]]; then echo "fake nvidia-smi: GPU is lost" >&2; exit 3; fi
  sleep "$(awk "BEGIN{print $ms/1000}")" & wait $!
done
`,
  );
}

export const AMD_HEADER =
  'timestamp,gpu,gfx_activity,umc_activity,mm_activity,socket_power,gfx_voltage,soc_voltage,mem_voltage,throttle_status,power_management,gfx_0_clk,mem_0_clk,edge,hotspot,mem';

/**
 * A fake amd-smi. `metric … -w S --csv`: a preamble, then per tick the header again and one row
 * per GPU stamped in whole epoch seconds (FAKE_AMD_BASE + tick, every FAKE_AMD_TICK_S seconds:
 * a fast fake clock). `metric -E --csv`: the energy accumulator (MI355X shape). `static --json`:
 * identity. Its argv and PYTHONUNBUFFERED go to `$FAKE_LOG`.
 */
export function fakeAmdSmi(dir: string): string {
  return script(
    dir,
    'amd-smi',
    `echo "amd-smi $* PYTHONUNBUFFERED=\${PYTHONUNBUFFERED:-}" >> "\${FAKE_LOG:-/dev/null}"
if [[ "$1" == "static" ]]; then
  [[ -n "$FAKE_STATIC_FAIL" ]] && { echo "partial"; exit 1; }
  echo '[{"gpu": 0, "asic": {"market_name": "AMD Instinct MI355X"}}, {"gpu": 1, "asic": {"market_name": "AMD Instinct MI355X"}}]'
  exit 0
fi
if [[ " $* " == *" -E "* ]]; then
  c=$(cat "$FAKE_COUNTER" 2>/dev/null || echo 0); echo $((c + 1)) > "$FAKE_COUNTER"
  echo "gpu,socket_power,gfx_voltage,soc_voltage,mem_voltage,throttle_status,power_management,total_energy_consumption"
  for i in 0 1; do echo "$i,238,N/A,N/A,N/A,N/A,ENABLED,$((1000000 + c * 5000 + i)).5"; done
  exit 0
fi
echo "'CTRL' + 'C' to stop watching output:"
base=\${FAKE_AMD_BASE:-1767225600}
k=0
while true; do
  echo "${AMD_HEADER}"
  for i in 0 1; do echo "$((base + k)),$i,95,40,0,$((700 + k % 50)),N/A,N/A,N/A,UNTHROTTLED,ENABLED,2100,1900,45,60,55"; done
  k=$((k + 1))
  if [[ -n "$FAKE_DIE_AFTER" && $k -ge $FAKE_DIE_AFTER ]]; then exit 1; fi
  sleep "\${FAKE_AMD_TICK_S:-0.1}" & wait $!
done
`,
  );
}

/** A fake sysfs: hwmon devices with `name`, power files (µW) and a `device` link. */
export function fakeSysfs(
  root: string,
  devices: { hwmon: string; name: string; file?: string; microwatts?: number; pci?: string }[],
): void {
  for (const d of devices) {
    const dir = join(root, 'class', 'hwmon', d.hwmon);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'name'), `${d.name}\n`);
    if (d.file) writeFileSync(join(dir, d.file), `${d.microwatts ?? 0}\n`);
  }
}

/** PATH with only the fake tools' dir and what a shell script needs. */
export const fakePath = (dir: string): string => `${dir}:/usr/bin:/bin`;

/** Data lines of a CSV so far (after the header), `\n` or `\r\n` ended. */
export const dataLines = (text: string): string[] =>
  text
    .split(/\r?\n/)
    .slice(1)
    .filter((l) => l !== '');
