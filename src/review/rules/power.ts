import { routedRows } from '../../clusters/index.js';
import type { Finding, Rule } from '../rule.js';
import { subject } from '../rule.js';
import type { Tree } from '../tree.js';
import {
  EXPORTER_ALIAS,
  POWER_FRAMEWORK,
  POWER_PROVIDER,
  RESERVED_EXPORTER_PORTS,
  STAMP_NAME,
  WORKFLOW,
  isFullCommit,
  launcherRecipePath,
  launcherSeesPower,
  powerLaunchers,
  producerPins,
  treeTextFiles,
} from './power-lane.js';
import type { PowerLauncher } from './power-lane.js';
import { configLocation, recipeLocation, resolvedReferences } from './shared.js';

/**
 * The power rules: what InferenceX's static contract tests of the official GB200/GB300
 * dcgm-power lanes (utils/test_gb200_power_official_contract.py, test_gb300_…) guard, as findings
 * on a change. A recipe turns power on with an enabled dcgm-power telemetry block; the launchers
 * detect it, allow it for one framework, provision the DCGM exporter, clone the producer fork at
 * the one pinned commit (POWER_SRT_SLURM_URL / POWER_SRT_SLURM_PIN), verify it and stamp it into
 * power-producer-sha.txt, which the workflow reads into POWER_PRODUCER_SHA.
 */

const fileSubject = (tree: Tree, path: string): string => subject.file(tree.snapshot.display(path));
const at = (tree: Tree, path: string, line: number, col = 1): Pick<Finding, 'file' | 'line' | 'col'> => ({
  file: tree.snapshot.display(path),
  line,
  col,
});

/** A recipe's telemetry block as YAML reads it. */
function telemetryOf(value: unknown): Record<string, unknown> | undefined {
  const t = (value as Record<string, unknown> | null)?.['telemetry'];
  return t && typeof t === 'object' && !Array.isArray(t) ? (t as Record<string, unknown>) : undefined;
}

const yamlEnablesPower = (value: unknown): boolean => {
  const t = telemetryOf(value);
  return t?.['provider'] === POWER_PROVIDER && t['enabled'] === true;
};

/** Each multinode reference whose in-tree recipe the launchers see as a power lane, with its launcher. */
async function powerRows(tree: Tree): Promise<
  {
    key: string;
    framework: string;
    value: string;
    recipePath: string;
    launcherPath: string;
    launcherName: string;
    location: Pick<Finding, 'file' | 'line' | 'col' | 'key' | 'path'>;
  }[]
> {
  const launcherOfKey = new Map<string, { path: string; name: string }>();
  for (const r of await routedRows(tree)) launcherOfKey.set(r.key, { path: r.launcher.path, name: r.launcher.name });
  const seen = new Set<string>();
  const out = [];
  for (const { reference } of await resolvedReferences(tree)) {
    if (reference.setting !== 'CONFIG_FILE') continue;
    const launcher = launcherOfKey.get(reference.key);
    const recipePath = launcherRecipePath(tree, reference.value);
    if (!launcher || !recipePath) continue;
    const bytes = tree.recipeBytes.get(recipePath);
    if (!bytes || !launcherSeesPower(bytes.toString('utf8'))) continue;
    const id = `${reference.key}\0${reference.value}`;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push({
      key: reference.key,
      framework: reference.config.framework,
      value: reference.value,
      recipePath,
      launcherPath: launcher.path,
      launcherName: launcher.name,
      location: configLocation(tree, reference.key, reference.settingPath),
    });
  }
  return out;
}

export const powerFramework: Rule = {
  id: 'power/framework',
  severity: 'error',
  scope: 'tree',
  description:
    'a recipe that enables dcgm-power telemetry is run only by configs of the framework the launcher allows (dynamo-sglang)',
  explanation:
    'InferenceX\'s GB200/GB300 launchers turn the power lane on when the recipe a row runs has an enabled dcgm-power telemetry block, and then exit with "dcgm-power lanes are only validated for FRAMEWORK=dynamo-sglang" for any other framework: the producer pin follows the srt-slurm lineage the dynamo-sglang lanes run on, while other frameworks clone diverging refs. A config of another framework that points CONFIG_FILE at a power recipe fails on the cluster after it has waited for its nodes. Point it at a recipe without the telemetry block, or run the power recipe from a dynamo-sglang config.',
  check: async ({ head }) => {
    const launchers = new Map((await powerLaunchers(head)).map((l) => [l.path, l]));
    const out: Finding[] = [];
    for (const row of await powerRows(head)) {
      const launcher = launchers.get(row.launcherPath);
      if (!launcher) continue; // power/unsupported-launcher
      const allowed = launcher.guard?.framework ?? POWER_FRAMEWORK;
      if (row.framework === allowed) continue;
      out.push({
        ...row.location,
        message: `${row.key} (framework ${row.framework}) runs ${row.value}, whose telemetry block enables dcgm-power; ${launcher.path}${launcher.guard ? `:${launcher.guard.line}` : ''} exits for power lanes of any framework but ${allowed}`,
        hint: `point CONFIG_FILE at a recipe without the dcgm-power telemetry block, or run this recipe from a ${allowed} config`,
        subjects: [subject.config(row.key), subject.recipe(row.recipePath), fileSubject(head, launcher.path)],
      });
    }
    return out;
  },
};

export const powerUnsupportedLauncher: Rule = {
  id: 'power/unsupported-launcher',
  severity: 'error',
  scope: 'tree',
  description: 'a recipe that enables dcgm-power telemetry runs only on clusters whose launcher has a power lane',
  explanation:
    "Only the launchers with a dcgm-power lane (InferenceX's runners/launch_gb200-nv.sh and launch_gb300-nv.sh) provision the DCGM exporter container, add its `dcgm-exporter` alias to srtslurm.yaml and clone the pinned producer fork of srt-slurm that understands the telemetry block. A power recipe run through any other launcher gets upstream srt-slurm and no exporter: the job fails or runs without power. Run the config on a GB200/GB300 runner, or use a recipe without the telemetry block.",
  check: async ({ head }) => {
    const launchers = new Set((await powerLaunchers(head)).map((l) => l.path));
    return (await powerRows(head))
      .filter((row) => !launchers.has(row.launcherPath))
      .map((row) => ({
        ...row.location,
        message: `${row.key} runs ${row.value}, whose telemetry block enables dcgm-power, through ${row.launcherPath}, which has no dcgm-power lane (no exporter, no pinned producer)`,
        hint: 'run the config on a runner whose launcher has a power lane (gb200-nv, gb300-nv), or use a recipe without the telemetry block',
        subjects: [subject.config(row.key), subject.recipe(row.recipePath), fileSubject(head, row.launcherPath)],
      }));
  },
};

export const powerUndetectedTelemetry: Rule = {
  id: 'power/undetected-telemetry',
  severity: 'error',
  scope: 'tree',
  description: 'a recipe whose YAML enables dcgm-power writes the block the way the launchers detect it',
  explanation:
    'The launchers decide the power lane before srt-slurm is cloned, with a line match on the workspace copy of the recipe: the top-level `telemetry:` line, then exactly `  provider: dcgm-power` and `  enabled: true` (block style, two spaces) before the next top-level key. A block written another way (flow style `telemetry: {provider: dcgm-power, enabled: true}`, four-space indentation, quotes, `True`, a trailing comment) is enabled for srtctl but not for the launcher: the run clones upstream srt-slurm with no exporter and no pinned producer, and fails or publishes without power. Write the block in block style with two-space indentation and plain values.',
  check: ({ head }) => {
    const out: Finding[] = [];
    for (const [path, file] of head.recipes) {
      if (!yamlEnablesPower(file.doc.value)) continue;
      const bytes = head.recipeBytes.get(path);
      if (!bytes || launcherSeesPower(bytes.toString('utf8'))) continue;
      out.push({
        ...recipeLocation(head, file, 'telemetry'),
        message:
          'telemetry enables dcgm-power, but not in the form the launchers detect (the lines `telemetry:`, `  provider: dcgm-power`, `  enabled: true`): the run takes the non-power lane, with no exporter and no pinned producer',
        hint: 'write the telemetry block in block style with two-space indentation: `telemetry:` then `  provider: dcgm-power` and `  enabled: true` on their own lines',
        subjects: [subject.recipe(path)],
      });
    }
    return out;
  },
};

export const powerExporterSettings: Rule = {
  id: 'power/exporter-settings',
  severity: 'error',
  scope: 'tree',
  description: "a power recipe's DCGM exporter uses the launchers' container alias and a port its cluster leaves free",
  explanation:
    'The launchers add the exporter squash to srtslurm.yaml under the alias `dcgm-exporter`; telemetry.dcgm_exporter.container_image must name that alias, or srtctl looks for a container nobody provisioned. On GB300 (launch_gb300-nv) the nodes already run a cluster-level DCGM exporter on port 9401, so the power exporter of a recipe run there must listen elsewhere (InferenceX uses 19401); on the same port it fails to start or the power is read from the wrong exporter. Set container_image: dcgm-exporter, and a port the cluster leaves free.',
  check: async ({ head }) => {
    const out: Finding[] = [];
    const reported = new Set<string>();
    for (const row of await powerRows(head)) {
      const file = head.recipes.get(row.recipePath);
      const exporter = telemetryOf(file?.doc.value)?.['dcgm_exporter'] as Record<string, unknown> | undefined;
      if (!file || !exporter || typeof exporter !== 'object') continue;
      const image = exporter['container_image'];
      if (image !== undefined && image !== EXPORTER_ALIAS && !reported.has(`image\0${row.recipePath}`)) {
        reported.add(`image\0${row.recipePath}`);
        out.push({
          ...recipeLocation(head, file, 'telemetry.dcgm_exporter.container_image'),
          message: `telemetry.dcgm_exporter.container_image is ${JSON.stringify(image)}, but the launchers provision the exporter under the srtslurm.yaml alias ${EXPORTER_ALIAS}`,
          hint: `set container_image: ${EXPORTER_ALIAS}`,
          subjects: [subject.recipe(row.recipePath), subject.config(row.key)],
        });
      }
      const port = exporter['port'];
      const reserved = RESERVED_EXPORTER_PORTS[row.launcherName] ?? [];
      if (typeof port === 'number' && reserved.includes(port) && !reported.has(`port\0${row.recipePath}\0${row.launcherName}`)) {
        reported.add(`port\0${row.recipePath}\0${row.launcherName}`);
        out.push({
          ...recipeLocation(head, file, 'telemetry.dcgm_exporter.port'),
          message: `telemetry.dcgm_exporter.port is ${port}, which the ${row.launcherName} nodes already bind (their cluster-level DCGM exporter); ${row.key} runs this recipe there`,
          hint: 'use a port the cluster leaves free (the GB300 power recipes use 19401)',
          subjects: [subject.recipe(row.recipePath), subject.config(row.key)],
        });
      }
    }
    return out;
  },
};

export const powerProducerPin: Rule = {
  id: 'power/producer-pin',
  severity: 'error',
  scope: 'tree',
  description:
    'each power launcher sets POWER_SRT_SLURM_URL and POWER_SRT_SLURM_PIN once, as literals, to a full commit, and all agree',
  explanation:
    'The power lanes publish which producer (the srt-slurm fork that records DCGM power) measured them, so they must run one exact commit: POWER_SRT_SLURM_PIN is assigned once per launcher as a quoted full 40-hex commit, next to POWER_SRT_SLURM_URL (an https …/srt-slurm.git URL), with no `$` in either (an environment variable could redirect the clone), and the GB200 and GB300 launchers carry the same pair, so a power result means the same producer on either cluster. A branch, tag or short sha moves or becomes ambiguous. Fix: write the full commit (`git ls-remote <url> <ref>` prints it) and bump every launcher together.',
  check: ({ head, base }) => pinFindings(head, base),
};

async function pinFindings(head: Tree, base: Tree | undefined): Promise<Finding[]> {
  const launchers = await powerLaunchers(head);
  const out: Finding[] = [];
  const subjects = launchers.map((l) => fileSubject(head, l.path));
  for (const l of launchers) {
    const own = [fileSubject(head, l.path)];
    for (const [name, list] of [
      ['POWER_SRT_SLURM_PIN', l.pin],
      ['POWER_SRT_SLURM_URL', l.url],
    ] as const) {
      if (list.length === 0) {
        if (l.producerClones.length === 0 && !l.lines.some((t) => t.includes(name))) continue;
        out.push({
          ...at(head, l.path, l.producerClones[0]?.line ?? 1),
          message: `${name} is never assigned, but the power lane uses it`,
          hint: `assign ${name}="<literal>" once near the top of the launcher`,
          subjects: own,
        });
        continue;
      }
      for (const extra of list.slice(1))
        out.push({
          ...at(head, l.path, extra.line),
          message: `${name} is assigned again (first at line ${list[0]!.line}); the pinned producer is one literal per launcher`,
          hint: `keep the one assignment at line ${list[0]!.line} and remove this one`,
          subjects: own,
        });
      const first = list[0]!;
      if (/[$`]/.test(first.raw))
        out.push({
          ...at(head, l.path, first.line),
          message: `${name}=${first.raw} expands a variable or command: the environment could redirect the pinned clone`,
          hint: `write the value as a quoted literal, ${name}="…"`,
          subjects: own,
        });
      else if (name === 'POWER_SRT_SLURM_PIN' && !isFullCommit(first.value))
        out.push({
          ...at(head, l.path, first.line),
          message: `POWER_SRT_SLURM_PIN is ${JSON.stringify(first.value)}, not a full 40-hex commit: a branch, tag or short sha can move or become ambiguous`,
          hint: 'pin the full commit (`git ls-remote <POWER_SRT_SLURM_URL> <ref>` prints it), quoted, lowercase',
          subjects: own,
        });
      else if (name === 'POWER_SRT_SLURM_URL' && !/^https:\/\/\S+\/srt-slurm\.git$/.test(first.value))
        out.push({
          ...at(head, l.path, first.line),
          message: `POWER_SRT_SLURM_URL is ${JSON.stringify(first.value)}, not an https URL of an srt-slurm repository (…/srt-slurm.git)`,
          hint: 'use the https clone URL of the producer fork, e.g. https://github.com/<owner>/srt-slurm.git',
          subjects: own,
        });
    }
  }
  // Launchers that must agree: the first pair is the reference, unless a review shows which launcher moved.
  // Only well-formed pairs are compared: a malformed pin or URL is its own finding above.
  const literal = (a: { raw: string }): boolean => !/[$`]/.test(a.raw);
  const pairs = launchers.filter(
    (l) => l.pin.length > 0 && l.url.length > 0 && literal(l.pin[0]!) && literal(l.url[0]!) && isFullCommit(l.pin[0]!.value),
  );
  if (pairs.length > 1) {
    const valueOf = (l: PowerLauncher): string => `${l.url[0]!.value} @ ${l.pin[0]!.value}`;
    const groups = new Map<string, PowerLauncher[]>();
    for (const l of pairs) groups.set(valueOf(l), [...(groups.get(valueOf(l)) ?? []), l]);
    if (groups.size > 1) {
      let reference = pairs[0]!;
      if (base) {
        const before = new Map((await powerLaunchers(base)).map((l) => [l.path, l]));
        const unchanged = pairs.find((l) => {
          const b = before.get(l.path);
          return b && b.pin.length > 0 && b.url.length > 0 && valueOf(b) === valueOf(l);
        });
        const moved = pairs.find((l) => before.has(l.path) && l !== unchanged);
        // The launcher(s) the change moved are reported; the one left as it was is the reference.
        if (unchanged && moved) reference = unchanged;
      }
      for (const l of pairs) {
        if (valueOf(l) === valueOf(reference)) continue;
        const differs = l.pin[0]!.value !== reference.pin[0]!.value ? l.pin[0]! : l.url[0]!;
        const name = differs === l.pin[0] ? 'POWER_SRT_SLURM_PIN' : 'POWER_SRT_SLURM_URL';
        const theirs = name === 'POWER_SRT_SLURM_PIN' ? reference.pin[0]! : reference.url[0]!;
        out.push({
          ...at(head, l.path, differs.line),
          message: `${name} is ${JSON.stringify(differs.value)} here but ${JSON.stringify(theirs.value)} in ${reference.path}:${theirs.line}: the power lanes of both clusters must run the same producer`,
          hint: `set the same ${name} in every power launcher (bump them together)`,
          subjects,
        });
      }
    }
  }
  return out;
}

export const powerPinLiteral: Rule = {
  id: 'power/pin-literal',
  severity: 'error',
  scope: 'tree',
  description: 'the producer pin is written only in the launchers, once each; workflows hard-code no commit',
  explanation:
    'The launchers\' POWER_SRT_SLURM_PIN is the single source of truth for the power producer: the workflow learns it from the stamp file the launcher writes. A copy of the 40-hex pin anywhere else (a workflow default, a script, a second literal in the launcher instead of "$POWER_SRT_SLURM_PIN") goes stale on the next bump and then reports or runs a producer the lane did not use. Workflows carry no 40-hex commit at all except action pins (`uses: …@<sha>`). Keep the one pin in the launchers and refer to it ("$POWER_SRT_SLURM_PIN" in the launcher, the stamp file in CI).',
  check: async ({ head }) => {
    const launchers = await powerLaunchers(head);
    if (launchers.length === 0) return [];
    const pins = await producerPins(head);
    const pinLines = new Map(launchers.map((l) => [l.path, new Set(l.pin.map((a) => a.line))]));
    const where = launchers.map((l) => `${l.path}${l.pin[0] ? `:${l.pin[0].line}` : ''}`).join(', ');
    const out: Finding[] = [];
    for (const file of await treeTextFiles(head)) {
      const workflow = WORKFLOW.test(file.path);
      file.lines.forEach((text, i) => {
        if (pinLines.get(file.path)?.has(i + 1)) return;
        const pin = [...pins].find((p) => text.includes(p));
        if (pin) {
          out.push({
            ...at(head, file.path, i + 1, text.indexOf(pin) + 1),
            message: `the power producer pin ${pin} is written here too; it must live only in the launchers' POWER_SRT_SLURM_PIN (${where})`,
            hint: pinLines.has(file.path)
              ? 'use "$POWER_SRT_SLURM_PIN" instead of the literal'
              : workflow
                ? "remove the literal: the workflow reads the producer from the launcher's stamp file (power-producer-sha.txt)"
                : 'remove the literal and read the pin from the launcher (or its stamp file, power-producer-sha.txt)',
            subjects: [fileSubject(head, file.path)],
          });
          return;
        }
        if (!workflow || /\buses:/.test(text)) return;
        const m = /\b[0-9a-f]{40}\b/.exec(text);
        if (m)
          out.push({
            ...at(head, file.path, i + 1, m.index + 1),
            message: `a workflow hard-codes the 40-hex commit ${m[0]}; workflows carry no commit besides action pins (uses: …@<sha>)`,
            hint: "keep the one producer pin in the launchers (POWER_SRT_SLURM_PIN); CI reads it from the launcher's stamp file",
            subjects: [fileSubject(head, file.path)],
          });
      });
    }
    return out;
  },
};

export const powerPinnedClone: Rule = {
  id: 'power/pinned-clone',
  severity: 'error',
  scope: 'tree',
  description: 'every power-lane clone checks out the pin, verifies HEAD against it, and stamps it into power-producer-sha.txt',
  explanation:
    'A power lane clones POWER_SRT_SLURM_URL and must then `git checkout "$POWER_SRT_SLURM_PIN" || exit 1`, verify `test "$(git rev-parse HEAD)" = "$POWER_SRT_SLURM_PIN" || { …; exit 1; }`, and write `git rev-parse HEAD > "$GITHUB_WORKSPACE/power-producer-sha.txt"`, the stamp the workflow turns into POWER_PRODUCER_SHA. Without the checkout the lane runs the fork\'s default branch; without the verification a failed or wrong checkout goes unnoticed; without the stamp the results name no producer. A power arm (`if [[ "$USES_DCGM_POWER" == "1" ]]`) that clones another repository, or a launcher that turns the lane on but never clones the producer, runs power recipes on a toolchain that was never pinned. Add the missing lines as the other power arms have them.',
  check: async ({ head }) => {
    const out: Finding[] = [];
    for (const l of await powerLaunchers(head)) {
      const own = [fileSubject(head, l.path)];
      const turnsOn = l.lane.find((a) => a.value === '1');
      if (turnsOn && l.producerClones.length === 0)
        out.push({
          ...at(head, l.path, turnsOn.line),
          message: 'the launcher turns the power lane on but never clones the pinned producer ("$POWER_SRT_SLURM_URL")',
          hint: 'in the power arm of each route, git clone "$POWER_SRT_SLURM_URL", check out and verify "$POWER_SRT_SLURM_PIN", and stamp it',
          subjects: own,
        });
      for (const c of l.producerClones) {
        const missing: string[] = [];
        if (!c.checkout) missing.push('never checks out "$POWER_SRT_SLURM_PIN" (it runs the default branch)');
        else if (!/POWER_SRT_SLURM_PIN/.test(c.checkout.ref))
          missing.push(`checks out ${c.checkout.ref} (line ${c.checkout.line}) instead of "$POWER_SRT_SLURM_PIN"`);
        else if (!c.checkout.exits && !c.verify) missing.push(`does not stop when the checkout at line ${c.checkout.line} fails`);
        if (!c.verify) missing.push('never verifies HEAD against the pin');
        if (!c.stamp) missing.push(`never writes the stamp $GITHUB_WORKSPACE/${STAMP_NAME}`);
        if (missing.length === 0) continue;
        out.push({
          ...at(head, l.path, c.line),
          message: `the power-lane clone of the producer at line ${c.line} ${missing.join('; ')}`,
          hint: `after the clone: git checkout "$POWER_SRT_SLURM_PIN" || exit 1; test "$(git rev-parse HEAD)" = "$POWER_SRT_SLURM_PIN" || { echo "…" >&2; exit 1; }; git rev-parse HEAD > "$GITHUB_WORKSPACE/${STAMP_NAME}"`,
          subjects: own,
        });
      }
      for (const c of l.otherPowerClones)
        out.push({
          ...at(head, l.path, c.line),
          message: `a power arm (USES_DCGM_POWER == 1) clones ${c.repo} instead of the pinned producer "$POWER_SRT_SLURM_URL"`,
          hint: 'clone "$POWER_SRT_SLURM_URL" in the power arm and check out "$POWER_SRT_SLURM_PIN"; keep other clones in the non-power else',
          subjects: own,
        });
    }
    return out;
  },
};

export const powerStamp: Rule = {
  id: 'power/stamp',
  severity: 'error',
  scope: 'tree',
  description:
    'the workflow fills POWER_PRODUCER_SHA from the stamp the launchers write, only when the input is empty, and never hard-codes it',
  explanation:
    'The producer a power result names comes from the launcher: it writes `git rev-parse HEAD` to $GITHUB_WORKSPACE/power-producer-sha.txt, and the multinode workflow template runs `if [ -z "$POWER_PRODUCER_SHA" ] && [ -f power-producer-sha.txt ]; then export POWER_PRODUCER_SHA="$(cat power-producer-sha.txt)"`, with POWER_PRODUCER_SHA: ${{ inputs.power-producer-sha }} as the manual override. A different file name on either side, a read that overwrites the input, or a hard-coded POWER_PRODUCER_SHA publishes a producer the lane did not run (or none). Use the same stamp name on both sides, keep the -z guard, and set POWER_PRODUCER_SHA only from the input or the stamp.',
  check: async ({ head }) => {
    const launchers = await powerLaunchers(head);
    if (launchers.length === 0) return [];
    const out: Finding[] = [];
    const writes = launchers.flatMap((l) => l.stamps.map((s) => ({ ...s, path: l.path })));
    const names = new Set(writes.map((w) => w.name));
    const reads: { path: string; line: number; name: string }[] = [];
    const workflows = (await treeTextFiles(head)).filter((f) => WORKFLOW.test(f.path));
    for (const wf of workflows) {
      wf.lines.forEach((text, i) => {
        const read = /\bPOWER_PRODUCER_SHA="?\$\(\s*cat\s+"?([^)"\s]+)"?\s*\)"?/.exec(text);
        if (read) {
          reads.push({ path: wf.path, line: i + 1, name: read[1]! });
          const guard = wf.lines.slice(Math.max(0, i - 3), i + 1).join('\n');
          if (!/-z\s+"?\$\{?POWER_PRODUCER_SHA\}?"?/.test(guard))
            out.push({
              ...at(head, wf.path, i + 1),
              message:
                'POWER_PRODUCER_SHA is read from the stamp without checking that it is empty: the stamp overrides the power-producer-sha input',
              hint: `guard the read: if [ -z "$POWER_PRODUCER_SHA" ] && [ -f ${read[1]!} ]; then …`,
              subjects: [fileSubject(head, wf.path)],
            });
          return;
        }
        const set = /\bPOWER_PRODUCER_SHA\s*(?::|=)\s*(.*)$/.exec(text);
        if (!set || /^\s*#/.test(text)) return;
        const value = set[1]!.trim().replace(/^["']|["']$/g, '');
        if (
          value === '' ||
          /^\$\{\{\s*inputs\.power-producer-sha\s*\}\}$/.test(value) ||
          /^\$\{?POWER_PRODUCER_SHA\}?$/.test(value)
        )
          return;
        if (/^\$\{\{/.test(value) && !/[0-9a-f]{7,}/.test(value)) return; // another expression (e.g. a matrix value)
        out.push({
          ...at(head, wf.path, i + 1),
          message: `POWER_PRODUCER_SHA is set to ${JSON.stringify(value)}: the producer must come from the power-producer-sha input or the launcher's stamp`,
          hint: `set POWER_PRODUCER_SHA: \${{ inputs.power-producer-sha }} and let the stamp (${STAMP_NAME}) fill it when empty`,
          subjects: [fileSubject(head, wf.path)],
        });
      });
    }
    const wfSubjects = workflows.map((w) => fileSubject(head, w.path));
    for (const r of reads)
      if (names.size > 0 && !names.has(r.name))
        out.push({
          ...at(head, r.path, r.line),
          message: `the workflow reads the producer stamp ${r.name}, but the launchers write ${[...names].join(', ')} (${writes.map((w) => `${w.path}:${w.line}`).join(', ')})`,
          hint: `read the file the launchers write (${STAMP_NAME})`,
          subjects: [fileSubject(head, r.path), ...launchers.map((l) => fileSubject(head, l.path))],
        });
    const readNames = new Set(reads.map((r) => r.name));
    for (const w of writes) {
      if (readNames.size === 0)
        out.push({
          ...at(head, w.path, w.line),
          message: `the launcher stamps the producer into ${w.name}, but no workflow reads it into POWER_PRODUCER_SHA`,
          hint: `in the multinode workflow: if [ -z "$POWER_PRODUCER_SHA" ] && [ -f ${w.name} ]; then export POWER_PRODUCER_SHA="$(cat ${w.name})"; fi`,
          subjects: [fileSubject(head, w.path), ...wfSubjects],
        });
      else if (!readNames.has(w.name) && names.size > 1)
        out.push({
          ...at(head, w.path, w.line),
          message: `the launcher stamps the producer into ${w.name}, but the workflow reads ${[...readNames].join(', ')}`,
          hint: `write the stamp the workflow reads (${[...readNames][0]!})`,
          subjects: [fileSubject(head, w.path), ...wfSubjects],
        });
    }
    return out;
  },
};

export const powerLaneGate: Rule = {
  id: 'power/lane-gate',
  severity: 'error',
  scope: 'tree',
  description:
    'a power launcher decides the lane only from the recipe (literal USES_DCGM_POWER=0/1) and refuses other frameworks',
  explanation:
    'Power is recipe-gated: the launcher sets USES_DCGM_POWER=0, then USES_DCGM_POWER=1 when the recipe has an enabled dcgm-power block, and exits when the lane is on for a framework other than dynamo-sglang. Any other assignment (from the environment, `${USES_DCGM_POWER:-0}`, a third place) is a backdoor that turns the lane on or off regardless of the recipe; without the framework guard a power recipe of another framework runs on a producer it was never validated with. Keep exactly the two literal assignments and the guard.',
  check: async ({ head }) => {
    const out: Finding[] = [];
    for (const l of await powerLaunchers(head)) {
      const own = [fileSubject(head, l.path)];
      if (l.lane.length === 0) continue;
      const literal = l.lane.map((a) => a.raw);
      if (literal.join(',') !== '0,1') {
        const bad = l.lane.find((a, i) => a.raw !== ['0', '1'][i]) ?? l.lane[l.lane.length - 1]!;
        out.push({
          ...at(head, l.path, bad.line),
          message: `USES_DCGM_POWER is assigned ${literal.map((v) => JSON.stringify(v)).join(', ')}; only the recipe may decide the lane (USES_DCGM_POWER=0, then =1 when its telemetry block enables dcgm-power)`,
          hint: 'keep exactly USES_DCGM_POWER=0 and, inside the recipe detection, USES_DCGM_POWER=1',
          subjects: own,
        });
      }
      if (!l.guard)
        out.push({
          ...at(head, l.path, l.lane[l.lane.length - 1]!.line),
          message: `the launcher has a power lane but no framework guard: a power recipe of any framework would run on the pinned producer`,
          hint: `after the detection: if [[ "$USES_DCGM_POWER" == "1" && "$FRAMEWORK" != "${POWER_FRAMEWORK}" ]]; then echo "…" >&2; exit 1; fi`,
          subjects: own,
        });
    }
    return out;
  },
};

/** What a power launcher does with the exporter image: each item, how it is recognised, and what its absence does. */
const PROVISIONING: readonly { test: RegExp; missing: string; add: string }[] = [
  {
    test: /\bimport_squash\s+"?\$\{?DCGM_EXPORTER_SQSH\}?"?\s+"?\$\{?DCGM_EXPORTER_IMAGE\}?"?/,
    missing: 'never imports the exporter image into its squash file (import_squash)',
    add: 'import_squash "$DCGM_EXPORTER_SQSH" "$DCGM_EXPORTER_IMAGE"',
  },
  {
    test: /\btest -r\s+"?\$\{?DCGM_EXPORTER_SQSH\}?"?\s*\|\|/,
    missing: 'never checks that the squash file is readable before the job uses it',
    add: 'test -r "$DCGM_EXPORTER_SQSH" || { echo "…" >&2; exit 1; }',
  },
  {
    test: /\bsha256sum\s+"?\$\{?DCGM_EXPORTER_SQSH\}?"?\s*>\s*"?\$\{?GITHUB_WORKSPACE\}?\/exporter-image\.sha256"?/,
    missing:
      'never hashes the exporter image into $GITHUB_WORKSPACE/exporter-image.sha256 (the audit cannot tell which exporter measured)',
    add: 'sha256sum "$DCGM_EXPORTER_SQSH" > "$GITHUB_WORKSPACE/exporter-image.sha256"',
  },
  {
    test: /dcgm-exporter: \$\{?DCGM_EXPORTER_SQSH\}?"?\s+srtslurm\.yaml/,
    missing: 'never adds the dcgm-exporter container alias to srtslurm.yaml (the recipe names a container nobody provisioned)',
    add: 'sed -i "/^  nginx-sqsh:/a\\\\  dcgm-exporter: ${DCGM_EXPORTER_SQSH}" srtslurm.yaml',
  },
  {
    test: /grep -q "\^\s+dcgm-exporter: "\s+srtslurm\.yaml\s*\|\|/,
    missing: 'never verifies that the dcgm-exporter alias landed in srtslurm.yaml (a missing anchor fails silently)',
    add: 'grep -q "^  dcgm-exporter: " srtslurm.yaml || { echo "…" >&2; exit 1; }',
  },
];

export const powerExporterProvisioning: Rule = {
  id: 'power/exporter-provisioning',
  severity: 'error',
  scope: 'tree',
  description:
    'a power launcher provisions a pinned DCGM exporter image, checks and hashes it, and injects and verifies its srtslurm.yaml alias',
  explanation:
    "When the lane is on, the launcher sets DCGM_EXPORTER_IMAGE to a fixed image (InferenceX: nvcr.io/nvidia/k8s/dcgm-exporter:4.6.0-4.8.3-distroless), imports it with import_squash, checks the squash with `test -r`, records `sha256sum` of it in $GITHUB_WORKSPACE/exporter-image.sha256 (copied into the logs' power/ folder for the audit), adds the `dcgm-exporter` alias after the nginx-sqsh line of srtslurm.yaml and verifies it with `grep -q`. A moving image (`:latest`, no tag, an expansion) measures with whichever exporter is current; each missing step either fails the job late or leaves the measurement without provenance. Add the missing line as the other power launcher has it.",
  check: async ({ head }) => {
    const out: Finding[] = [];
    for (const l of await powerLaunchers(head)) {
      const on = l.lane.find((a) => a.value === '1');
      if (!on) continue;
      const own = [fileSubject(head, l.path)];
      const images = l.lines.flatMap((text, i) => {
        const m = /^\s*DCGM_EXPORTER_IMAGE=(.*)$/.exec(text);
        return m ? [{ line: i + 1, raw: m[1]!.trim() }] : [];
      });
      if (images.length === 0) {
        out.push({
          ...at(head, l.path, on.line),
          message: 'the launcher turns the power lane on but never sets DCGM_EXPORTER_IMAGE: no exporter is provisioned',
          hint: 'in the power block: DCGM_EXPORTER_IMAGE="<registry>/dcgm-exporter:<version>", then import, check, hash and inject it',
          subjects: own,
        });
        continue;
      }
      const image = images[0]!;
      const value = image.raw.replace(/^"|"$/g, '');
      if (/[$`]/.test(value) || !/[:@][^/]+$/.test(value) || /:latest$/.test(value))
        out.push({
          ...at(head, l.path, image.line),
          message: `DCGM_EXPORTER_IMAGE is ${image.raw}, not a fixed image (a literal with a version tag or digest): the exporter that measures power can change from run to run`,
          hint: 'pin the exporter image, e.g. DCGM_EXPORTER_IMAGE="nvcr.io/nvidia/k8s/dcgm-exporter:4.6.0-4.8.3-distroless"',
          subjects: own,
        });
      const text = l.lines.join('\n');
      const missing = PROVISIONING.filter((p) => !p.test.test(text));
      if (missing.length > 0)
        out.push({
          ...at(head, l.path, image.line),
          message: `the power lane's exporter ${missing.map((m) => m.missing).join('; ')}`,
          hint: `add ${missing.map((m) => m.add).join(' and ')}`,
          subjects: own,
        });
    }
    return out;
  },
};

export const powerTelemetryOptional: Rule = {
  id: 'power/telemetry-optional',
  severity: 'warning',
  scope: 'tree',
  description: 'a recipe that enables dcgm-power makes its telemetry required',
  explanation:
    "InferenceX's official power recipes set telemetry.required: true, so a run whose exporter or collector fails fails, instead of publishing a benchmark point that silently has no power (or partial power) while the lane says it measured it. Without it a broken exporter goes unnoticed until someone looks for the joules. Set required: true in the telemetry block.",
  check: ({ head }) => {
    const out: Finding[] = [];
    for (const [path, file] of head.recipes) {
      const bytes = head.recipeBytes.get(path);
      if (!bytes || !launcherSeesPower(bytes.toString('utf8'))) continue;
      const t = telemetryOf(file.doc.value);
      if (!t || t['required'] === true) continue;
      out.push({
        ...recipeLocation(head, file, 'required' in t ? 'telemetry.required' : 'telemetry'),
        message: `telemetry enables dcgm-power but required is ${'required' in t ? JSON.stringify(t['required']) : 'not set'}: a failed exporter gives a result without power instead of a failed run`,
        hint: 'set required: true in the telemetry block',
        subjects: [subject.recipe(path)],
      });
    }
    return out;
  },
};

export const POWER_RULES: readonly Rule[] = [
  powerFramework,
  powerUnsupportedLauncher,
  powerUndetectedTelemetry,
  powerExporterSettings,
  powerTelemetryOptional,
  powerLaneGate,
  powerExporterProvisioning,
  powerProducerPin,
  powerPinLiteral,
  powerPinnedClone,
  powerStamp,
];
