import { Command } from 'commander';
import { GOLDEN_DIR, GoldenError, THINKING_MODES, curvesFor, loadGolden } from '../specdec/golden.js';
import type { GoldenFile } from '../specdec/golden.js';
import { UserError } from '../util/user-error.js';
import { pathOption } from './paths.js';
import { formatOption } from './options.js';

async function goldenFiles(dir: string | undefined): ReturnType<typeof loadGolden> {
  try {
    return await loadGolden(dir);
  } catch (e) {
    if (e instanceof GoldenError) throw new UserError(e.message);
    throw e;
  }
}

function showCurves(files: GoldenFile[], model: string): string {
  const curves = curvesFor(files, model);
  if (curves.length === 0) {
    const known = [...new Set(files.flatMap((f) => f.curves.map((c) => c.model)))].join(', ');
    throw new UserError(`no golden AL curve for ${model} (curves: ${known}); name a model key or an InferenceX model prefix`);
  }
  const out: string[] = [];
  for (const file of files.filter((f) => f.curves.some((c) => curves.includes(c)))) {
    const mine = file.curves.filter((c) => curves.includes(c));
    out.push(`${mine[0]!.model}  ${file.file}`);
    if (file.measuredOn) out.push(`  measured on ${file.measuredOn}`);
    if (file.sourceRun) out.push(`  source run ${file.sourceRun}`);
    for (const mode of THINKING_MODES) {
      const kwargs = file.chatTemplateKwargs[mode];
      if (kwargs && mine.some((c) => c.mode === mode)) out.push(`  ${mode} chat_template_kwargs ${JSON.stringify(kwargs)}`);
    }
    const lengths = [...new Set(mine.flatMap((c) => [...c.points.map((p) => p.draftLength), ...c.unmeasured]))].sort(
      (a, b) => a - b,
    );
    const heads = mine.map((c) => c.mode ?? 'AL');
    out.push(`  ${['draft', ...heads].map((h) => h.padStart(14)).join('')}`);
    for (const n of lengths) {
      const cells = mine.map((c) => c.points.find((p) => p.draftLength === n)?.al.toFixed(2) ?? '—');
      out.push(`  ${[String(n), ...cells].map((h) => h.padStart(14)).join('')}`);
    }
    out.push('');
  }
  return out.join('\n');
}

export function alCommand(): Command {
  const al = new Command('al').description("InferenceX's golden acceptance-length curves (speculative decoding)");
  const dirOption = pathOption(
    '--dir <dir>',
    `folder of curve files (default: ${GOLDEN_DIR}/ here, else the built-in copy)`,
    'catalog',
  );
  al.command('show')
    .description('print the golden AL of a model at each draft length and thinking mode')
    .argument('<model>', 'model key (deepseek-v4-pro) or InferenceX model prefix (dsv4)')
    .addOption(dirOption)
    .addOption(formatOption())
    .action(async (model: string, flags: { dir?: string; format: string }) => {
      const { files } = await goldenFiles(flags.dir);
      if (flags.format === 'json') {
        const curves = curvesFor(files, model);
        if (curves.length === 0) showCurves(files, model);
        process.stdout.write(`${JSON.stringify(curves, null, 2)}\n`);
      } else process.stdout.write(showCurves(files, model));
    });
  al.command('list')
    .description('list the curve files and their models')
    .addOption(dirOption)
    .action(async (flags: { dir?: string }) => {
      const { files, from } = await goldenFiles(flags.dir);
      const lines = files.map((f) => {
        const models = [...new Set(f.curves.map((c) => c.model))].join(', ');
        const modes = [...new Set(f.curves.map((c) => c.mode ?? 'no mode'))].join(', ');
        return `${f.file}  ${models}  (${modes})`;
      });
      process.stdout.write(`${lines.join('\n')}\n${files.length} files from ${from}\n`);
    });
  return al;
}
